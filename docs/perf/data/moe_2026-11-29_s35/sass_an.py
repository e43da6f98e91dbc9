#!/usr/bin/env python3
"""Session 35: per ncu source-page CSV (ncu --import r.ncu-rep --page source --csv --print-source sass), the warp-state
samples by stall reason and the 40 SASS instructions with the most samples. Usage: sass_an.py x_sass.csv ..."""
import csv, sys, re
from collections import Counter
for p in sys.argv[1:]:
    rows = list(csv.reader(open(p)))
    hdr = rows[1]; data = rows[2:]
    ix = {h: i for i, h in enumerate(hdr)}
    reasons = [h for h in hdr if h.startswith('stall_') and '(Not Issued)' not in h]
    tot = Counter(); insts = []
    for r in data:
        if len(r) < len(hdr): continue
        s = int(r[ix['Warp Stall Sampling (All Samples)']] or 0)
        per = {k: int(r[ix[k]] or 0) for k in reasons}
        for k, v in per.items(): tot[k] += v
        insts.append((s, r[ix['Address']], r[ix['Source']].strip(), per, int(r[ix['Instructions Executed']] or 0)))
    T = sum(tot.values())
    print('==', p, 'samples', T, 'instructions', len(insts))
    print('  ', ', '.join(f'{k[6:]} {v/T:.1%}' for k, v in tot.most_common(10)))
    insts.sort(key=lambda x: -x[0])
    for s, a, src, per, ex in insts[:40]:
        top = sorted(per.items(), key=lambda kv: -kv[1])[:3]
        print(f'  {s/T:6.2%} {a[-5:]} {src[:60]:60s} ex={ex:9d} ' + ' '.join(f'{k[6:]}={v}' for k, v in top if v))
