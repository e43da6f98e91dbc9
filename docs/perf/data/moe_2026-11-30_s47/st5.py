#!/usr/bin/env python3
"""Per token count and tune round: the best passed pipeline whose stage 1 has 4 stages and the best with 5, per stage-1
form (`_q`, `_q_r`), from profile_<round>.csv in <dir>; then st5 / st4."""
import csv, glob, os, re, sys
from collections import defaultdict

d = sys.argv[1]
best = defaultdict(dict)  # (token, form, st) -> round -> (us, name, parts)
for p in sorted(glob.glob(os.path.join(d, 'profile_*.csv'))):
    rnd = re.findall(r'_(\d+)\.csv$', p)[0]
    for row in csv.DictReader(open(p)):
        if row['verdict'] != 'passed' or row['role'] != 'candidate':
            continue
        m = re.search(r's1wg_bm64_n256_st(\d)_q(_r)?[+]', row['kernelName'])
        if not m:
            continue
        key = (int(row['token']), '_q_r' if m.group(2) else '_q', int(m.group(1)))
        us = float(row['us'])
        if rnd not in best[key] or us < best[key][rnd][0]:
            best[key][rnd] = (us, row['kernelName'].replace('cktune_moe_', ''), row['parts'])
print('| tokens | form | round | st4 us | st5 us | st5/st4 |')
print('|---|---|---|---|---|---|')
for t in sorted({k[0] for k in best}):
    for form in ('_q', '_q_r'):
        for rnd in sorted(best[(t, form, 4)]):
            a, b = best[(t, form, 4)].get(rnd), best[(t, form, 5)].get(rnd)
            if a and b:
                print(f'| {t} | {form} | {rnd} | {a[0]:.2f} | {b[0]:.2f} | {b[0] / a[0]:.3f} |')
for k in sorted(best):
    for rnd, (us, name, parts) in sorted(best[k].items()):
        print(f'  {k} r{rnd}: {us:.2f} {name} {parts}')
