#!/usr/bin/env python3
"""The decode kernels' per-warp time stamps (probe build, probe_decode_untested.diff) -> where a launch's time goes.
Usage: probe32.py DIR   (the CSVs gemm_dev wrote with CKTUNE_PROBE_DIR=DIR, one per shape and instance)

Per file: the launch's span (first warp entry to last warp exit, %globaltimer), the spread of the CTAs' entries, and
per warp (medians and maxima over warps, µs since the launch's first entry): when its first ring slots were requested,
its first and last slot computed, its ring done and its exit; and the median time between two computed slots. mmad's
marks are [slots requested, token rows copied, each slot computed..., ring done]; gemv's [slots requested, each
chunk computed..., ring done, lanes reduced]."""
import csv
import glob
import os
import statistics as st
import sys


def q(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * (len(v) - 1) + 0.5))] if v else float("nan")


for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.csv"))):
    rows = list(csv.DictReader(open(path)))
    if not rows:
        continue
    name = os.path.basename(path)[:-4]
    gemv = "_gemv" in name
    g0 = min(int(r["g0"]) for r in rows)
    span = (max(int(r["g_end"]) for r in rows) - g0) / 1e3
    # SM clock from each warp's entry-to-exit pair (cycles over ns), median over warps that lived > 1 µs.
    f = st.median([(int(r["c_end"]) - int(r["c0"])) / (int(r["g_end"]) - int(r["g0"]))
                   for r in rows if int(r["g_end"]) - int(r["g0"]) > 1000] or [1.9])
    at = {"entry": [], "requested": [], "first": [], "last": [], "ring": [], "exit": []}
    gaps = []
    for r in rows:
        base = (int(r["g0"]) - g0) / 1e3
        c0 = int(r["c0"])
        marks = [(int(r[f"m{i}"]) - c0) / f / 1e3 for i in range(2, 13) if int(r[f"m{i}"]) != 0]
        computes = marks[1:-2] if gemv else marks[2:-1]
        at["entry"].append(base)
        at["requested"].append(base + marks[0])
        if computes:
            at["first"].append(base + computes[0])
            at["last"].append(base + computes[-1])
            gaps += [b - a for a, b in zip(computes, computes[1:])]
        at["ring"].append(base + (marks[-2] if gemv else marks[-1]))
        at["exit"].append((int(r["g_end"]) - g0) / 1e3)
    ctas = len({r["cta"] for r in rows})
    print(f"{name}: {ctas} CTAs, {len(rows)} warps, span {span:.2f} µs, SM clock {f:.2f} GHz")
    for k, v in at.items():
        print(f"  {k:9} p0 {q(v, 0):6.2f}  p50 {q(v, 0.5):6.2f}  p90 {q(v, 0.9):6.2f}  max {q(v, 1):6.2f} µs")
    if gaps:
        print(f"  between two computed slots: p10 {q(gaps, 0.1):.3f}  p50 {q(gaps, 0.5):.3f}  p90 {q(gaps, 0.9):.3f} µs")
