#!/usr/bin/env bash
# Session 56, call 2 (issue #13 and #11, the final binaries): HEAD + the checks' kept threads with the thread count by
# work size at 16,384 cells a thread (call 1 had 65,536). (1) Session 51's check of the kept kernels on shapes no tune
# had held (`../check_2026-12-01_s51/call1.sh` as it is: the block-scale, per-token and fused-MoE GPU tests; 8 GEMM
# shapes and 7 DeepSeek-V3 token counts tuned as two shards, merged, `merge --check`, `bench --config` against the
# default, `report --tuned`). (2) The 48-shape grid tuned (-v: seconds by phase a shape) and benched against
# cuBLASLt in the same run; tune/bench agreement. Everything under $OUT as archives (a call brings back few files).
set -u
bash docs/perf/data/check_2026-12-01_s51/call1.sh
O=/tmp/s56c2; mkdir -p $O; g=configs/grids/a8w8_blockscale_untuned_gemm_dsv3_grid.csv
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu,power.limit --format=csv,noheader
timeout 150 .carry/cktune tune -v -i $g -o $O/tuned.csv -o2 $O/profile.csv --device gpu --json > $O/tune.json 2> $O/tune.err
echo "tune rc=$?"
python3 -c "import json; d=json.load(open('$O/tune.json')); print('  tune s', round(d['seconds'],1), 'first', round(d['first_timing_s'],2), d['candidate_results'], {k: round(v,1) for k,v in d['phases_s'].items()})"
timeout 100 .carry/cktune bench -i $g --config $O/tuned.csv --device gpu -o $O/after.csv > $O/bench.txt 2> $O/bench.err; echo "bench rc=$?"
.carry/cktune compare --vs-baseline $O/after.csv --json > $O/vs_blaslt.json 2>/dev/null
python3 -c "import json; d=json.load(open('$O/vs_blaslt.json')); print('vs cuBLASLt', round(d['summary']['geomean'],3), {k: round(v['geomean'],3) for k,v in d['by_class'].items()})"
python3 - $O <<'PY'
import csv, sys, math
O = sys.argv[1]
key = lambda r: (r["M"], r["N"], r["K"])
t = {key(r): float(r["us"]) for r in csv.DictReader(open(f"{O}/tuned.csv"))}
b = {key(r): float(r["us"]) for r in csv.DictReader(open(f"{O}/after.csv")) if r["role"] == "dispatch"}
r = {k: b[k] / t[k] for k in t if k in b}
v = list(r.values())
print(f"bench/tune: {sum(abs(x - 1) <= 0.10 for x in v)} of {len(v)} within 10%, geomean {math.exp(sum(map(math.log, v)) / len(v)):.3f}, "
      f"range {min(v):.3f}-{max(v):.3f}; outside: {[(k, round(x, 3)) for k, x in r.items() if abs(x - 1) > 0.10]}")
PY
rm -rf $O/*.cktune; (cd /tmp && tar czf "$OUT/s56c2.tgz" s56c2)
