#!/usr/bin/env python3
"""Session 41: per token count, each passed pipeline's time in each tune of <dir> (profile_{variant}_{round}.csv),
and for the `_q` stage 1 its time against the same pipeline with the plain `_n256` stage 1 in the same tune."""
import csv, glob, os, re, sys
from collections import defaultdict

d = sys.argv[1]
t = defaultdict(dict)  # (token, pipeline) -> run -> us
for p in sorted(glob.glob(os.path.join(d, 'profile_*_*.csv'))):
    run = os.path.basename(p)[8:-4]
    for row in csv.DictReader(open(p)):
        if row['verdict'] == 'passed' and row['role'] == 'candidate':
            t[(int(row['token']), row['kernelName'].replace('cktune_moe_', ''))][run] = (float(row['us']), row['parts'])
runs = sorted({r for v in t.values() for r in v})
print('| tokens | pipeline | ' + ' | '.join(runs) + ' |')
print('|---' * (len(runs) + 2) + '|')
for (tok, name) in sorted(t):
    print(f'| {tok} | {name} | ' + ' | '.join(f"{t[(tok, name)][r][0]:.1f}" if r in t[(tok, name)] else '-' for r in runs) + ' |')
print('\n_q / plain n256 stage 1, same stage 2, same tune:')
for (tok, name) in sorted(t):
    if '_q+' not in name:
        continue
    plain = name.replace('_q+', '+')
    rs = [f"{r} {t[(tok, name)][r][0] / t[(tok, plain)][r][0]:.3f}" for r in runs if r in t[(tok, name)] and r in t.get((tok, plain), {})]
    print(f'  {tok} {name}: ' + ' '.join(rs))
print('\nbest pipeline per tune:')
for tok in sorted({k[0] for k in t}):
    cells = []
    for r in runs:
        best = min(((v[r][0], n) for (tk, n), v in t.items() if tk == tok and r in v), default=None)
        if best:
            cells.append(f'{r} {best[0]:.1f} {best[1]}')
    print(f'  {tok}: ' + '; '.join(cells))
