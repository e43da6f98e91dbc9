#!/usr/bin/env python3
"""Per token count of each tune profile given: the best fully timed passed pipeline whose stage 1 is a `_b` row, the
best without one, their ratio, and their parts. Usage: cmp45.py PROFILE.csv..."""
import csv, sys
from collections import defaultdict

for path in sys.argv[1:]:
    best = defaultdict(dict)
    for row in csv.DictReader(open(path)):
        if row['role'] != 'candidate' or row['verdict'] != 'passed' or row['reason'].startswith('screened out'):
            continue
        t, us, name = int(row['token']), float(row['us']), row['kernelName']
        kind = 'b' if name.split('+')[0].endswith('_b') else 'other'
        if kind not in best[t] or us < best[t][kind][0]:
            best[t][kind] = (us, name.replace('cktune_moe_', ''), row['parts'])
    print(f'== {path}')
    for t in sorted(best):
        b, o = best[t].get('b'), best[t].get('other')
        ratio = f'{b[0] / o[0]:.3f}' if b and o else '-'
        print(f'{t:6} tokens: _b {b[0] if b else "-":>8}  other {o[0] if o else "-":>8}  _b/other {ratio}')
        for k in ('b', 'other'):
            if k in best[t]:
                print(f'         {k:5} {best[t][k][1]}  {best[t][k][2]}')
