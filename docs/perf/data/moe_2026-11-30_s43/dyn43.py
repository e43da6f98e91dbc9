#!/usr/bin/env python3
"""Session 43: per token count, each `_dyn` stage-2 pipeline against its static twin in the same tune (new binary), and
every static pipeline of the new binary against the same pipeline of the base binary, round by round; then the best
pipeline of each tune. <dir> holds profile_{variant}_{round}.csv (ab41.sh)."""
import csv, glob, os, sys
from collections import defaultdict

d = sys.argv[1]
t = defaultdict(dict)  # (token, pipeline) -> run -> us
for p in sorted(glob.glob(os.path.join(d, 'profile_*_*.csv'))):
    run = os.path.basename(p)[8:-4]
    for row in csv.DictReader(open(p)):
        if row['verdict'] == 'passed' and row['role'] == 'candidate':
            t[(int(row['token']), row['kernelName'].replace('cktune_moe_', ''))][run] = float(row['us'])
runs = sorted({r for v in t.values() for r in v})
rounds = sorted({r.rsplit('_', 1)[1] for r in runs})
print('| tokens | pipeline | ' + ' | '.join(runs) + ' | dyn / static (new) by round | new / base by round |')
print('|---' * (len(runs) + 4) + '|')
for (tok, name) in sorted(t):
    v = t[(tok, name)]
    twin = t.get((tok, name[:-4])) if name.endswith('_dyn') else None
    dyn = ' '.join(f"{v[f'new_{r}'] / twin[f'new_{r}']:.3f}" for r in rounds
                   if twin and f'new_{r}' in v and f'new_{r}' in twin)
    nb = ' '.join(f"{v[f'new_{r}'] / v[f'base_{r}']:.3f}" for r in rounds if f'new_{r}' in v and f'base_{r}' in v)
    print(f'| {tok} | {name} | ' + ' | '.join(f"{v[r]:.1f}" if r in v else '-' for r in runs) + f' | {dyn} | {nb} |')
print('\nbest pipeline per tune:')
for tok in sorted({k[0] for k in t}):
    for r in runs:
        best = min(((v[r], n) for (tk, n), v in t.items() if tk == tok and r in v), default=None)
        if best:
            print(f'  {tok} {r}: {best[0]:.1f} {best[1]}')
