#!/usr/bin/env python3
"""Per token count and tune profile: each stage 2 of the pipelines tuned (with the one stage 1 of calls 9-10), its
pipeline time and stage-2 part, and the best 256-column stage 2 against the best 128-column one.
Usage: n256.py profile.csv[.gz] ..."""
import csv, gzip, sys
from collections import defaultdict

for p in sys.argv[1:]:
    rows = defaultdict(dict)
    for r in csv.DictReader((gzip.open if p.endswith('.gz') else open)(p, 'rt')):
        if r['role'] != 'candidate' or '+' not in r['kernelName']:
            continue
        s2 = r['kernelName'].split('+')[1].replace('cktune_moe_', '')
        part = dict(x.split('=') for x in r['parts'].split(';')).get('stage2') if r['parts'] else None
        rows[int(r['token'])][s2] = (r['verdict'], float(r['us']), float(part) if part else None)
    print(f'== {p}')
    for t in sorted(rows):
        print(f'  {t}: ' + '; '.join(f'{n} {v} {us:.1f}' + (f' (s2 {pp:.1f})' if pp else '')
                                   for n, (v, us, pp) in sorted(rows[t].items())))
        best = {w: min((us for n, (v, us, _) in rows[t].items() if v == 'passed' and f'_n{w}_' in n), default=None)
                for w in (128, 256)}
        if best[128] and best[256]:
            print(f'      best n256 / best n128 = {best[256] / best[128]:.3f}')
