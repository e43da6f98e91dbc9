#!/usr/bin/env python3
"""Session 36 (prepared): per ncu source-page CSV (ncu --import r.ncu-rep --page source --csv --print-source sass), the
warp instructions executed by opcode (the first word of each SASS line, predicate and modifiers dropped), and side by
side for two or more CSVs. Usage: opcount36.py a_sass.csv b_sass.csv ..."""
import csv, re, sys
from collections import Counter

cols = []
for p in sys.argv[1:]:
    rows = list(csv.reader(open(p)))
    hdr, data = rows[1], rows[2:]
    ix = {h: i for i, h in enumerate(hdr)}
    c = Counter()
    for r in data:
        if len(r) < len(hdr):
            continue
        src = re.sub(r'^@!?U?P[T0-9]+\s+', '', r[ix['Source']].strip())
        op = src.split(' ')[0].split('.')[0] if src else '?'
        c[op] += int(r[ix['Instructions Executed']] or 0)
    cols.append((p, c))
ops = sorted({o for _, c in cols for o in c}, key=lambda o: -max(c[o] for _, c in cols))
print('opcode'.ljust(12) + ''.join(p.split('/')[-1][:22].rjust(24) for p, _ in cols))
for o in ops[:40]:
    print(o.ljust(12) + ''.join(f'{c[o]:24d}' for _, c in cols))
print('total'.ljust(12) + ''.join(f'{sum(c.values()):24d}' for _, c in cols))
