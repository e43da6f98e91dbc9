#!/usr/bin/env python3
"""Per token count and tune profile: the best passed pipeline of each stage-1 instance (any stage 2), with its stage-1
part, and each `_pfN` or `_la` row (or the suffixes the regex SUFFIX names, e.g. SUFFIX=sa) against the same row without it.
Usage: [SUFFIX=regex] pf.py profile.csv[.gz] ..."""
import csv, gzip, os, re, sys
from collections import defaultdict

for p in sys.argv[1:]:
    best = defaultdict(dict)  # token -> stage-1 name -> (us, stage1 part)
    for r in csv.DictReader((gzip.open if p.endswith('.gz') else open)(p, 'rt')):
        if r['verdict'] != 'passed' or r['role'] != 'candidate' or '+' not in r['kernelName']:
            continue
        s1 = r['kernelName'].split('+')[0].replace('cktune_moe_', '')
        t, us = int(r['token']), float(r['us'])
        part = dict(x.split('=') for x in r['parts'].split(';')).get('stage1') if r['parts'] else None
        if s1 not in best[t] or us < best[t][s1][0]:
            best[t][s1] = (us, part)
    print(f'== {p}')
    for t in sorted(best):
        rows = sorted(best[t].items(), key=lambda kv: kv[1][0])
        print(f'  {t}: ' + '; '.join(f'{n} {us:.1f}' + (f' (s1 {float(pp):.1f})' if pp else '') for n, (us, pp) in rows))
        for n, (us, _) in rows:
            m = re.match(r'(.*)_(' + os.environ.get('SUFFIX', r'pf\d+|la') + r')$', n)
            if m and m.group(1) in best[t]:
                print(f'      {n} / {m.group(1)} = {us / best[t][m.group(1)][0]:.3f}')
