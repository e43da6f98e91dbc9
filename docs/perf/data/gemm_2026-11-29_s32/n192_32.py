#!/usr/bin/env python3
"""gemm_dev's CSV (scripts/gpu_prefill_run.sh time: the persistent wgmma rows and cuBLASLt on the grid's M >= 512
shapes) -> per shape: the block-scale 128 x 192 tile (`wgmmap_m128_n192`, n192_block_untested.diff) against the best
other own instance and the best cuBLASLt algorithm, TFLOP/s, and the geometric means.
Usage: n192_32.py prefill.csv"""
import csv
import math
import sys
from collections import defaultdict

by = defaultdict(dict)
for r in csv.DictReader(open(sys.argv[1])):
    if r["ok"] != "1":
        continue
    k = (int(r["M"]), int(r["N"]), int(r["K"]))
    name, us = r["candidate"], float(r["median_us"])
    side = "bl" if r["vendor"] == "1" else ("n192" if "_m128_n192_" in name else "own")
    if us < by[k].get(side, (1e18, ""))[0]:
        by[k][side] = (us, name)
print(f"{'shape':>22} {'n192 us':>9} {'own us':>9} {'blaslt':>9} {'own/n192':>9} {'bl/n192':>8} {'n192 TF/s':>9}  best other own")
ratios, vs_bl = [], []
for k in sorted(by):
    d = by[k]
    if "n192" not in d or "own" not in d:
        continue
    n, o, b = d["n192"][0], d["own"][0], d.get("bl", (float("nan"), ""))[0]
    tf = 2.0 * k[0] * k[1] * k[2] / n * 1e-6
    ratios.append(o / n)
    if b == b:
        vs_bl.append(b / min(n, o))
    print(f"{str(k):>22} {n:9.1f} {o:9.1f} {b:9.1f} {o / n:9.3f} {b / n:8.3f} {tf:9.0f}  {d['own'][1]}")
g = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")
print(f"own best / n192: geomean {g(ratios):.3f} over {len(ratios)} shapes (> 1: the 192 tile faster); "
      f"cuBLASLt / best own with it: {g(vs_bl):.3f}")
