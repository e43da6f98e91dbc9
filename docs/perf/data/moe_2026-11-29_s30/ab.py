#!/usr/bin/env python3
"""Per token count: the best passed pipeline of each tune in <dir> (profile_{base,new}_{round}.csv), its parts, and the
best block_m 128 pipeline; then new / base per round."""
import csv, glob, os, re, sys
from collections import defaultdict

d = sys.argv[1]
runs = sorted(glob.glob(os.path.join(d, 'profile_*_*.csv')), key=lambda p: (int(re.findall(r'_(\d+)\.csv$', p)[0]), 'base' not in p, p))
best = defaultdict(dict)  # token -> run -> (us, name, parts)
best128 = defaultdict(dict)
for p in runs:
    run = os.path.basename(p)[8:-4]
    for row in csv.DictReader(open(p)):
        if row['verdict'] != 'passed' or row['role'] != 'candidate':
            continue
        t, us = int(row['token']), float(row['us'])
        for table, ok in ((best, True), (best128, 'bm128' in row['kernelName'])):
            if ok and (run not in table[t] or us < table[t][run][0]):
                table[t][run] = (us, row['kernelName'].replace('cktune_moe_', ''), row['parts'])
names = [os.path.basename(p)[8:-4] for p in runs]
for title, table in (('best pipeline', best), ('best block_m 128 pipeline', best128)):
    print(f'\n{title} (us; tune profile)')
    print('| tokens | ' + ' | '.join(names) + ' | variant/base by round |')
    print('|---' * (len(names) + 2) + '|')
    for t in sorted(table):
        cells = [f"{table[t][n][0]:.1f}" if n in table[t] else '-' for n in names]
        ratios = []
        for v in sorted({n.rsplit('_', 1)[0] for n in names} - {'base'}):
            for r in sorted({n.rsplit('_', 1)[1] for n in names}):
                b, n = table[t].get(f'base_{r}'), table[t].get(f'{v}_{r}')
                if b and n:
                    ratios.append(f'{v}{r} {n[0] / b[0]:.3f}')
        print(f'| {t} | ' + ' | '.join(cells) + ' | ' + ' '.join(ratios) + ' |')
    for t in sorted(table):
        for n in names:
            if n in table[t]:
                us, name, parts = table[t][n]
                print(f'  {t} {n}: {us:.1f} {name} {parts}')
