#!/usr/bin/env python3
"""Same-geometry pairs in a gemm_dev log: for each shape, an instance named <base>_<rest> against <twin>_<rest>
(e.g. mmad / mmadp), geomean of base time / twin time per M, and the best of each side.
Usage: pairs.py decode.log BASE TWIN [BASE TWIN ...]"""
import gzip
import math
import re
import sys
from collections import defaultdict

path, names = sys.argv[1], sys.argv[2:]
opener = gzip.open if path.endswith(".gz") else open
cur, t = None, defaultdict(dict)
for line in opener(path, "rt"):
    m = re.match(r"== M=(\d+) N=(\d+) K=(\d+)", line)
    if m:
        cur = tuple(map(int, m.groups()))
        continue
    m = re.match(r"\s+(\S+)\s+([\d.]+) us", line)
    if m and cur:
        t[cur][m.group(1)] = float(m.group(2))
g = lambda x: math.exp(sum(map(math.log, x)) / len(x))
for base, twin in zip(names[::2], names[1::2]):
    ratios, best = defaultdict(list), defaultdict(list)
    for sh, v in sorted(t.items()):
        pairs = [(v[k], v[twin + k[len(base):]]) for k in v if k.startswith(base + "_") and twin + k[len(base):] in v]
        for a, b in pairs:
            ratios[sh[0]].append(a / b)
        if pairs:
            best[sh[0]].append(min(a for a, _ in pairs) / min(b for _, b in pairs))
            print(f"  {sh}: best {base} {min(a for a, _ in pairs):.2f} us, best {twin} {min(b for _, b in pairs):.2f} us")
    for M in sorted(ratios):
        r = ratios[M]
        print(f"{base}/{twin} M={M}: same geometry {g(r):.3f} over {len(r)} pairs (min {min(r):.3f}, max {max(r):.3f});"
              f" best/best {g(best[M]):.3f} over {len(best[M])} shapes")
