#!/usr/bin/env python3
"""Per token count of a moe_2stages tune profile: the best passing pipeline whose stage 1 is paired (`_p2`) and the
best whose stage 1 is not, each with its stage-1 part time where the profile has it. Usage: p2_vs_plain.py profile.csv
[SUFFIX] (default _p2; another suffix compares those stage-1 rows with the rows that have neither it nor _p2)"""
import csv
import math
import sys

suffix = sys.argv[2] if len(sys.argv) > 2 else "_p2"
best = {}  # (token, paired) -> (us, name, parts)
for r in csv.DictReader(open(sys.argv[1])):
    if r["role"] != "candidate" or r["verdict"] != "passed":
        continue
    s1 = r["kernelName"].split("+")[0]
    if "s1wg" not in s1:
        continue
    if suffix != "_p2" and "_p2" in s1:
        continue
    key = (int(r["token"]), suffix in s1)
    us = float(r["us"])
    if key not in best or us < best[key][0]:
        best[key] = (us, r["kernelName"], r.get("parts", ""))
ratios = []
print(f"{'tokens':>7} {'plain us':>10} {suffix + ' us':>10} {'plain/' + suffix:>9}  best plain / best {suffix}")
for t in sorted({k[0] for k in best}):
    a, b = best.get((t, False)), best.get((t, True))
    if not a or not b:
        continue
    ratios.append(a[0] / b[0])
    print(f"{t:>7} {a[0]:>10.1f} {b[0]:>10.1f} {a[0] / b[0]:>9.3f}  {a[1]} / {b[1]}")
    for x in (a, b):
        if x[2]:
            print(f"{'':>7} parts {x[1].split('+')[0]}: {x[2]}")
if ratios:
    print(f"geomean plain/{suffix} over {len(ratios)} token counts: {math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f}")
