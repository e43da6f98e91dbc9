#!/usr/bin/env python3
"""Session 38: per token count and stage-2 row, the best passed pipeline's total and stage-2 part in each tune profile
of <dir> (profile_<variant>_<round>.csv), then each variant / base for the same row per round (total, and stage 2).
Usage: s2ab.py dir"""
import csv, glob, os, sys
from collections import defaultdict

d = sys.argv[1]
runs = [os.path.basename(p)[8:-4] for p in sorted(glob.glob(os.path.join(d, 'profile_*_*.csv')))]
best = defaultdict(lambda: defaultdict(dict))  # token -> stage-2 row -> run -> (us, stage-2 part)
for run in runs:
    for r in csv.DictReader(open(os.path.join(d, f'profile_{run}.csv'))):
        if r['verdict'] != 'passed' or r['role'] != 'candidate' or '+' not in r['kernelName']:
            continue
        s2 = r['kernelName'].split('+')[1].replace('cktune_moe_', '')
        t, us = int(r['token']), float(r['us'])
        part = dict(x.split('=') for x in r['parts'].split(';')).get('stage2') if r['parts'] else None
        cur = best[t][s2].get(run)
        if cur is None or us < cur[0]:
            best[t][s2][run] = (us, float(part) if part else float('nan'))
variants = sorted({r.rsplit('_', 1)[0] for r in runs} - {'base'})
rounds = sorted({r.rsplit('_', 1)[1] for r in runs})
for t in sorted(best):
    print(f'== {t} tokens (us: total / stage 2)')
    print('  ' + 'stage 2 row'.ljust(34) + ''.join(r.rjust(17) for r in runs) + '   variant/base by round: total (stage 2)')
    for s2 in sorted(best[t]):
        cells = ''.join((f'{best[t][s2][r][0]:8.1f}/{best[t][s2][r][1]:7.1f}' if r in best[t][s2] else '-').rjust(17) for r in runs)
        notes = []
        for v in variants:
            for rd in rounds:
                b, n = best[t][s2].get(f'base_{rd}'), best[t][s2].get(f'{v}_{rd}')
                if b and n:
                    notes.append(f'{v}{rd} {n[0] / b[0]:.3f} ({n[1] / b[1]:.3f})')
        print('  ' + s2.ljust(34) + cells + '   ' + ' '.join(notes))
