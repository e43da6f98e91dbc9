#!/usr/bin/env python3
"""Best block_m 128 and best block_m 64 pipeline per token count in each tune profile of calls 1-4, and their ratio.
The block_m 64 kernels are the same code in every binary of the session (the padding test compiles out with one
consumer warpgroup), so they are the control: the ratio compares block_m 128 code across calls and binaries.
Usage: control.py [profile.csv[.gz] ...]   (default: call*/profile_*.csv.gz beside this script)"""
import csv, glob, gzip, os, sys

here = os.path.dirname(os.path.abspath(__file__))
rows = []
paths = sys.argv[1:] or sorted(glob.glob(os.path.join(here, 'call*', 'profile_*.csv.gz')))
for p in paths:
    call = os.path.basename(os.path.dirname(os.path.abspath(p))).split('_')[0]
    run = os.path.basename(p)[8:].split('.csv')[0]
    opener = gzip.open if p.endswith('.gz') else open
    best = {64: {}, 128: {}}
    for r in csv.DictReader(opener(p, 'rt')):
        if r['verdict'] != 'passed' or r['role'] != 'candidate' or 's1wg_' not in r['kernelName']:
            continue
        bm = 128 if 'bm128' in r['kernelName'] else 64
        t, us = int(r['token']), float(r['us'])
        if t not in best[bm] or us < best[bm][t]:
            best[bm][t] = us
    rows.append((call, run, best))
tokens = [t for t in (512, 1024, 2048, 4096, 8192, 16384)]
print('| call | run | ' + ' | '.join(f'{t}: bm128 / bm64 (ratio)' for t in tokens) + ' |')
print('|---' * (len(tokens) + 2) + '|')
for call, run, best in rows:
    cells = []
    for t in tokens:
        a, b = best[128].get(t), best[64].get(t)
        cells.append(f'{a:.0f} / {b:.0f} ({a / b:.3f})' if a and b else '-')
    print(f'| {call} | {run} | ' + ' | '.join(cells) + ' |')
