#!/usr/bin/env python3
"""Per token count of a moe_2stages tune profile: the fastest passing pipelines with their parts' times, and the
best pipeline per stage-1 kind (the stage-1 name without its stage count). Usage: parts.py profile.csv [top]"""
import csv
import re
import sys

top = int(sys.argv[2]) if len(sys.argv) > 2 else 14
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["role"] == "candidate" and r["verdict"] == "passed"]
for t in sorted({int(r["token"]) for r in rows}):
    rs = sorted((r for r in rows if int(r["token"]) == t), key=lambda r: float(r["us"]))
    print(f"tokens {t}:")
    for r in rs[:top]:
        print(f"  {float(r['us']):8.1f}  {r['kernelName']:<78} {r.get('parts', '')}")
    kinds = {}
    for r in rs:
        k = re.sub(r"_st\d+", "", r["kernelName"].split("+")[0])
        kinds.setdefault(k, r)
    print("  best per stage-1 kind:")
    for k, r in sorted(kinds.items(), key=lambda kv: float(kv[1]["us"])):
        print(f"  {float(r['us']):8.1f}  {r['kernelName']:<78} {r.get('parts', '')}")
