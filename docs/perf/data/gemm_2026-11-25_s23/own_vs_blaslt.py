# From a tune profile (-o2 CSV): per shape the best passing own instance and the best cuBLASLt algorithm;
# geometric means of cuBLASLt / own best and cuBLASLt / min(own, cuBLASLt) for M <= 128, M >= 256 and all.
# Usage: python3 own_vs_blaslt.py profile.csv [v]   (v: one line per shape)
import csv, sys, math, collections
rows = list(csv.DictReader(open(sys.argv[1])))
own = {}; bl = {}
for r in rows:
    if r['role'] != 'candidate' or r['verdict'] != 'passed' or not r['us']: continue
    k = (int(r['M']), int(r['N']), int(r['K'])); us = float(r['us'])
    d = bl if r['kernelName'].startswith('blaslt') else own
    if us < d.get(k, (1e18, ''))[0]: d[k] = (us, r['kernelName'])
g = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float('nan')
cls = collections.defaultdict(list)
for k in sorted(own):
    if k not in bl: continue
    o, b = own[k][0], bl[k][0]; t = min(o, b)
    c = 'M<=128' if k[0] <= 128 else 'M>=256'
    for cc in (c, 'all'): cls[cc].append((b / o, b / t))
    if len(sys.argv) > 2: print(k, f"own {o:.1f} {own[k][1]} blaslt {b:.1f} own/bl {b/o:.3f}")
for c, v in cls.items():
    print(f"{c}: {len(v)} shapes, own best vs cuBLASLt {g([x[0] for x in v]):.3f}x, tuned vs cuBLASLt {g([x[1] for x in v]):.3f}x")
