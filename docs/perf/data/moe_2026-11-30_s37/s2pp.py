#!/usr/bin/env python3
"""Session 37, call 5: per token count and stage-2 row, the best passed pipeline's total and stage-2 part in each tune
profile of <dir> (profile_<variant>_<round>.csv), then new / base for the same row per round, and each `_pp` row against
the row without it in the same profile. Usage: s2pp.py dir"""
import csv, glob, os, re, sys
from collections import defaultdict

d = sys.argv[1]
prof = sorted(glob.glob(os.path.join(d, 'profile_*_*.csv')))
runs = [os.path.basename(p)[8:-4] for p in prof]
best = defaultdict(lambda: defaultdict(dict))  # token -> s2 -> run -> (us, s2 part)
for p, run in zip(prof, runs):
    for r in csv.DictReader(open(p)):
        if r['verdict'] != 'passed' or r['role'] != 'candidate' or '+' not in r['kernelName']:
            continue
        s2 = r['kernelName'].split('+')[1].replace('cktune_moe_', '')
        t, us = int(r['token']), float(r['us'])
        part = dict(x.split('=') for x in r['parts'].split(';')).get('stage2') if r['parts'] else None
        cur = best[t][s2].get(run)
        if cur is None or us < cur[0]:
            best[t][s2][run] = (us, float(part) if part else float('nan'))
rounds = sorted({r.rsplit('_', 1)[1] for r in runs})
for t in sorted(best):
    print(f'== {t} tokens (us: total / stage 2)')
    print('  ' + 'stage 2 row'.ljust(38) + ''.join(r.rjust(18) for r in runs) + '   new/base by round; _pp/plain (new) by round')
    for s2 in sorted(best[t]):
        cells = ''.join((f'{best[t][s2][r][0]:8.1f}/{best[t][s2][r][1]:7.1f}' if r in best[t][s2] else '-').rjust(18) for r in runs)
        notes = []
        for rd in rounds:
            b, n = best[t][s2].get(f'base_{rd}'), best[t][s2].get(f'new_{rd}')
            if b and n:
                notes.append(f'r{rd} {n[0] / b[0]:.3f}')
        m = re.match(r'(.*)_pp$', s2)
        if m and m.group(1) in best[t]:
            for rd in rounds:
                a, b = best[t][s2].get(f'new_{rd}'), best[t][m.group(1)].get(f'new_{rd}')
                if a and b:
                    notes.append(f'pp r{rd} {a[0] / b[0]:.3f} (s2 {a[1] / b[1]:.3f})')
        print('  ' + s2.ljust(38) + cells + '   ' + ' '.join(notes))
