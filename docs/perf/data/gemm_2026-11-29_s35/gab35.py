#!/usr/bin/env python3
"""Session 35: per shape, the best own instance (median us) of each gemm_dev run in <dir> ({base,new}_{round}.csv), new /
base per round, cuBLASLt's best where timed, and TFLOP/s at 8192 x 7168 x 16384."""
import csv, glob, math, os, re, sys
from collections import defaultdict

d = sys.argv[1]
best = defaultdict(dict)  # shape -> run -> (us, name)
bl = {}
for p in sorted(glob.glob(os.path.join(d, '*_[0-9]*.csv'))):
    run = os.path.basename(p)[:-4]
    for r in csv.DictReader(open(p)):
        if r['ok'] != '1':
            continue
        s = (int(r['M']), int(r['N']), int(r['K']))
        us = float(r['median_us'])
        if r['vendor'] == '1':
            bl[s] = min(bl.get(s, 1e30), us)
        elif run not in best[s] or us < best[s][run][0]:
            best[s][run] = (us, r['candidate'])
runs = sorted({r for s in best for r in best[s]}, key=lambda x: (int(x.split('_')[1]), x))
rounds = sorted({int(r.split('_')[1]) for r in runs})
print('| M,N,K | ' + ' | '.join(runs) + ' | new/base by round | cuBLASLt |')
print('|---' * (len(runs) + 3) + '|')
logs = defaultdict(list)
for s in sorted(best):
    ratios = []
    for k in rounds:
        b, n = best[s].get(f'base_{k}'), best[s].get(f'new_{k}')
        if b and n:
            ratios.append(n[0] / b[0])
            logs[k].append(math.log(n[0] / b[0]))
    print(f'| {s} | ' + ' | '.join(f"{best[s][r][0]:.1f}" if r in best[s] else '-' for r in runs) +
          ' | ' + ' '.join(f'{x:.3f}' for x in ratios) + f" | {bl.get(s, float('nan')):.1f} |")
for k in rounds:
    if logs[k]:
        print(f'round {k}: geomean new/base {math.exp(sum(logs[k]) / len(logs[k])):.4f} over {len(logs[k])} shapes')
s = (8192, 7168, 16384)
if s in best:
    f = 2 * 8192 * 7168 * 16384
    print('8192x7168x16384 PFLOP/s: ' + ', '.join(f'{r} {f / best[s][r][0] / 1e9:.3f} ({best[s][r][1]})' for r in runs if r in best[s]))
