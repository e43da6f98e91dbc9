#!/usr/bin/env python3
"""Session 41 call 9: per never-tuned token count, the grid table's kernel as benched against the same kernel's time in
the tune of that count, and the count's own tuned winner in tune and in bench; with each bench row's verdict."""
import csv, os, sys

d = sys.argv[1]
def rows(name):
    return list(csv.DictReader(open(os.path.join(d, name))))
prof = {}
for r in rows('profile_own.csv'):
    if r['verdict'] == 'passed' and r['role'] == 'candidate':
        prof[(r['token'], r['kernelName'])] = (float(r['us']), 'screen' if r['reason'].startswith('screened') else 'full')
def after(name):  # the tuned-table launch of each shape in a bench (role dispatch, source tuned)
    out = {}
    for r in rows(name):
        if r['role'] == 'dispatch' and r['source'] == 'tuned':
            out[r['token']] = (r['kernelName'], float(r['us']), r['verdict'])
    return out
grid, own = after('bench_grid_table.csv'), after('bench_own.csv')
win = {r['token']: (r.get('kernelName1', '') + ('+' + r['kernelName2'] if r.get('kernelName2') else ''), float(r['us']))
       for r in rows('tuned_own.csv')}
print('| tokens | grid table: kernel | bench | tune of the same kernel | bench/tune | verdict | own winner | tune | bench | bench/tune | verdict |')
print('|---|---|---|---|---|---|---|---|---|---|---|')
ok = 0
n = 0
for t in sorted(grid, key=int):
    k, b, v = grid[t]
    tt, how = prof.get((t, k), (None, '-'))
    wk, wt = win.get(t, ('-', float('nan')))
    ok_k, ob, ov = own.get(t, ('-', float('nan'), '-'))
    r1 = b / tt if tt else float('nan')
    r2 = ob / wt
    n += 2
    ok += (0.9 <= r1 <= 1.1) + (0.9 <= r2 <= 1.1)
    print(f"| {t} | {k.replace('cktune_moe_', '')} | {b:.2f} | {tt if tt else float('nan'):.2f} ({how}) | {r1:.3f} | {v} | "
          f"{wk.replace('cktune_moe_', '')} | {wt:.2f} | {ob:.2f} | {r2:.3f} | {ov} |")
print(f'within 10%: {ok} of {n}')
