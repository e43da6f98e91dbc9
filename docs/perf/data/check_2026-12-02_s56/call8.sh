#!/usr/bin/env bash
# Session 56, call 8 (trustworthy numbers): bench in tune's order. base = f470fb4 (the grid in the input's order: each
# (N, K) group from M = 1 up, so the next group's short shapes follow a power-capped big one); new = base + bench
# running shapes as tune does (costliest first, the cheapest leading; the printed table in the input's order). The
# grid benched against call 2's table, base / new / base / new on one board: bench/tune per shape, and the short
# shapes that benched 5-11% over tune's time in calls 2 and 4 (1x32768x512, 1x7168x2048, 16x32768x512).
set -u
bash scripts/unpack_carry.sh > /dev/null
mkdir -p .carry/base && xz -dc .carryz/base/cktune.xz > .carry/base/cktune && chmod +x .carry/base/cktune
D=docs/perf/data/check_2026-12-02_s56; O=/tmp/s56c8; mkdir -p $O; g=configs/grids/a8w8_blockscale_untuned_gemm_dsv3_grid.csv
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm --format=csv,noheader
for run in base1:.carry/base/cktune new1:.carry/cktune base2:.carry/base/cktune new2:.carry/cktune; do
  n=${run%%:*}; B=${run#*:}
  timeout 120 $B bench -i $g --config $D/call2_tuned.csv --device gpu -o $O/$n.csv > $O/$n.txt 2> $O/$n.err; echo "bench $n rc=$?"
  python3 - $O $n $D <<'PY'
import csv, sys, math
O, n, D = sys.argv[1:4]
key = lambda r: (r["M"], r["N"], r["K"])
t = {key(r): float(r["us"]) for r in csv.DictReader(open(f"{D}/call2_tuned.csv"))}
rows = list(csv.DictReader(open(f"{O}/{n}.csv")))
b = {key(r): float(r["us"]) for r in rows if r["role"] == "dispatch"}
order = [key(r) for r in rows if r["role"] == "dispatch"]
r = {k: b[k] / t[k] for k in t if k in b}
v = list(r.values())
small = [k for k in r if int(k[0]) <= 16]
print(f"  {n}: bench/tune {sum(abs(x - 1) <= 0.10 for x in v)} of {len(v)} within 10%, {sum(abs(x - 1) <= 0.05 for x in v)} within 5%, "
      f"geomean {math.exp(sum(map(math.log, v)) / len(v)):.3f}; M <= 16 geomean {math.exp(sum(math.log(r[k]) for k in small) / len(small)):.3f}, "
      f"max {max(r[k] for k in small):.3f}; first {order[0]}; outside 10% {[(k, round(x, 3)) for k, x in r.items() if abs(x - 1) > 0.10]}")
print("   ", " ".join(f"{k[0]}x{k[1]}x{k[2]}:{r[k]:.3f}" for k in (("1","32768","512"), ("1","7168","2048"), ("16","32768","512"), ("1","24576","1536"), ("16","24576","1536"))))
PY
  head -4 $O/$n.txt | tail -2 | cut -c1-120
done
(cd /tmp && tar czf "$OUT/s56c8.tgz" s56c8)
