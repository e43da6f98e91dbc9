#!/usr/bin/env python3
"""Per token count and tune profile: the best pipeline whose stage 1 is the 256-row block_m 64 tile
(`s1wg_bm64_n256`, s1_n256_untested.diff) against the best block_m 64 pipeline with the 128-row stage 1 and the best
pipeline of all others, with the stage-1 parts. STAGE=2 does the same for stage 2's 256-column block_m 64 tile
(`s2wg_bm64_n256`, session 33's s2_bm64_n256_untested.diff). Usage: [STAGE=2] s1n256.py profile.csv[.gz] ..."""
import csv
import gzip
import os
import sys

stage = int(os.environ.get("STAGE", "1"))
from collections import defaultdict

for p in sys.argv[1:]:
    best = defaultdict(dict)
    for r in csv.DictReader((gzip.open if p.endswith(".gz") else open)(p, "rt")):
        if r["role"] != "candidate" or "+" not in r["kernelName"] or r["verdict"] != "passed":
            continue
        if r["reason"].startswith("screened"):
            continue
        s1 = r["kernelName"].split("+")[stage - 1]
        side = "n256" if "_bm64_n256_" in s1 else ("bm64" if "_bm64_" in s1 else "other")
        us = float(r["us"])
        part = dict(x.split("=") for x in r["parts"].split(";")).get(f"stage{stage}") if r["parts"] else None
        t = int(r["token"])
        if us < best[t].get(side, (1e18,))[0]:
            best[t][side] = (us, r["kernelName"].replace("cktune_moe_", ""), part)
    print(f"== {p}")
    for t in sorted(best):
        d = best[t]
        line = f"  {t:6}: " + "; ".join(f"{k} {v[0]:.1f} ({v[1]}, s{stage} {v[2]})" for k, v in sorted(d.items()))
        if "n256" in d and "bm64" in d:
            line += f"  | n256/bm64 {d['n256'][0] / d['bm64'][0]:.3f}"
        if "n256" in d and "other" in d:
            line += f"  n256/other {d['n256'][0] / d['other'][0]:.3f}"
        print(line)
