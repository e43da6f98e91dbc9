#!/usr/bin/env python3
"""Per token count of a moe_2stages tune profile: the best passing pipeline whose name holds SUFFIX against the best
whose name does not, with their parts' times where the profile has them. Usage: with_vs_without.py profile.csv SUFFIX"""
import csv
import math
import sys

suffix = sys.argv[2]
best = {}
for r in csv.DictReader(open(sys.argv[1])):
    if r["role"] != "candidate" or r["verdict"] != "passed":
        continue
    key = (int(r["token"]), suffix in r["kernelName"])
    if key not in best or float(r["us"]) < best[key][0]:
        best[key] = (float(r["us"]), r["kernelName"], r.get("parts", ""))
ratios = []
print(f"{'tokens':>7} {'without':>9} {'with':>9} {'ratio':>7}  best without / best with {suffix}")
for t in sorted({k[0] for k in best}):
    a, b = best.get((t, False)), best.get((t, True))
    if not a or not b:
        continue
    ratios.append(a[0] / b[0])
    print(f"{t:>7} {a[0]:>9.1f} {b[0]:>9.1f} {a[0] / b[0]:>7.3f}  {a[1]} / {b[1]}")
    for x in (a, b):
        if x[2]:
            print(f"{'':>7} parts {x[1]}: {x[2]}")
if ratios:
    print(f"geomean without/with over {len(ratios)} token counts: {math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f}")
