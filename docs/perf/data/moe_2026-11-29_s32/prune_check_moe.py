#!/usr/bin/env python3
"""Call 6: for each MoE key the exhaustive run (--screen-factor 0) finished, was its winner screened out in the pruned
run (call 3), and the three fastest whole pipelines of each run. Usage: prune_check_moe.py (from this directory)."""
import csv
import gzip


def rows(path):
    opener = gzip.open if path.endswith(".gz") else open
    return list(csv.DictReader(opener(path, "rt")))


full = {r["token"]: r["kernelName1"] + "+" + r["kernelName2"] for r in rows("call6/tuned_all.csv")}
pruned_prof = rows("call3/profile_qwen3_235b_tp4_uniform.csv.gz")
full_prof = rows("call6/profile_all.csv.gz")
for t, k in full.items():
    hit = [r for r in pruned_prof if r["token"] == t and r["kernelName"] == k and r["role"] == "candidate"]
    reason = hit[0]["reason"] if hit else "not in the pruned run's profile"
    cands = [r for r in pruned_prof if r["token"] == t and r["role"] == "candidate"]
    print(f"{t} tokens: exhaustive row {k}; in the pruned run {'screened out' if reason.startswith('screened') else 'fully timed'}"
          f" ({sum(r['reason'].startswith('screened') for r in cands)} of {len(cands)} screened out there)")
    for name, prof in (("exhaustive", full_prof), ("pruned", pruned_prof)):
        c = sorted((r for r in prof if r["token"] == t and r["role"] == "candidate" and r["verdict"] == "passed"
                    and not r["reason"].startswith("screened")), key=lambda r: float(r["us"]))
        print(f"  {name:10} fastest pipelines: " + "; ".join(f"{r['kernelName']} {float(r['us']):.1f}" for r in c[:3]))
