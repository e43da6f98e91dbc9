#!/usr/bin/env bash
# Session 56, call 4 (trustworthy numbers): the grid bench's first shape. Call 3: 1 x 32768 x 512 benched alone times
# 9.34-9.57 us whether the GPU sat idle 5 s before or not (no ramp over 3000 launches); in call 2's grid bench, where
# it is the first shape, 10.98. (1) The grid benched at -vv with call 2's table (each timed launch of every shape). (2)
# The same grid with 1 x 32768 x 512 moved to the end. Is it the first shape of a grid bench, or this shape in a grid?
set -u
bash scripts/unpack_carry.sh > /dev/null
D=docs/perf/data/check_2026-12-02_s56; O=/tmp/s56c4; mkdir -p $O; g=configs/grids/a8w8_blockscale_untuned_gemm_dsv3_grid.csv
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm --format=csv,noheader
{ head -1 $g; tail -n +2 $g | grep -v '^1,32768,512$'; echo 1,32768,512; } > $O/grid_last.csv
head -3 $O/grid_last.csv; tail -1 $O/grid_last.csv
for run in grid:$g last:$O/grid_last.csv grid2:$g; do
  n=${run%%:*}; f=${run#*:}
  timeout 120 .carry/cktune bench -i $f --config $D/call2_tuned.csv --device gpu -vv -o $O/$n.csv > /dev/null 2> $O/$n.err; echo "bench $n rc=$?"
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
print(f"  {n}: bench/tune {sum(abs(x - 1) <= 0.10 for x in v)} of {len(v)} within 10%, geomean {math.exp(sum(map(math.log, v)) / len(v)):.3f}; "
      f"first three {[(k, round(r[k], 3)) for k in order[:3]]}; 1x32768x512 {r[('1', '32768', '512')]:.3f} ({b[('1', '32768', '512')]} us); "
      f"outside {[(k, round(x, 3)) for k, x in r.items() if abs(x - 1) > 0.10]}")
PY
  grep -E "^\[debug\] prepare" $O/$n.err | head -3 | cut -c1-200
done
(cd /tmp && tar czf "$OUT/s56c4.tgz" s56c4)
