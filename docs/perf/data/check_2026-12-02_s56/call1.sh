#!/usr/bin/env bash
# Session 56, call 1 (issue #13, the tuner's time: the checks). base = d42ea7d's cktune and check_cost; new = base +
# parallel_for's kept threads + the check's thread count by work size. (1) check_cost base / new: the host's part of
# one check by shape and thread count. (2) GPU tests with the new binaries. (3) The 48-shape grid tuned new / base /
# new on this board (-v; phases). (4) The new table benched (vs cuBLASLt in the same run, tune/bench agreement).
set -u
bash scripts/unpack_carry.sh > /dev/null
mkdir -p .carry/base && for f in cktune check_cost; do xz -dc .carryz/base/$f.xz > .carry/base/$f && chmod +x .carry/base/$f; done
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu,power.limit --format=csv,noheader
nproc
O=$OUT/s56c1; mkdir -p $O; g=configs/grids/a8w8_blockscale_untuned_gemm_dsv3_grid.csv
for v in base:.carry/base/check_cost new:.carry/check_cost; do
  echo "== check_cost ${v%%:*}"; timeout 60 ${v#*:} 100 | tee $O/check_cost_${v%%:*}.txt
done
timeout 200 .carry/cktune_gpu_tests > $O/gtests.log 2>&1; echo "gtests rc=$?"; grep -E "^\[  (PASSED|FAILED)|instance runs passed" $O/gtests.log
for run in new1:.carry/cktune base:.carry/base/cktune new2:.carry/cktune; do
  n=${run%%:*}; B=${run#*:}
  timeout 150 $B tune -v -i $g -o $O/tuned_$n.csv -o2 $O/profile_$n.csv --device gpu --json > $O/tune_$n.json 2> $O/tune_$n.err
  echo "tune $n rc=$?"
  python3 -c "import json; d=json.load(open('$O/tune_$n.json')); print('  tune s', round(d['seconds'],1), 'first', round(d['first_timing_s'],2), d['candidate_results'], {k: round(v,1) for k,v in d['phases_s'].items()})"
done
python3 - $O <<'PY'
import csv, sys, math
O = sys.argv[1]
key = lambda r: (r["M"], r["N"], r["K"])
T = {n: {key(r): r for r in csv.DictReader(open(f"{O}/tuned_{n}.csv"))} for n in ("new1", "base", "new2")}
for a, b in (("new1", "base"), ("new2", "base"), ("new1", "new2")):
    same = sum(T[a][k]["kernelName"] == T[b][k]["kernelName"] for k in T[b] if k in T[a])
    r = [float(T[a][k]["us"]) / float(T[b][k]["us"]) for k in T[b] if k in T[a]]
    print(f"{a} vs {b}: same winner {same}/{len(T[b])}, us ratio geomean {math.exp(sum(map(math.log, r)) / len(r)):.3f}, max {max(r):.3f}")
PY
timeout 100 .carry/cktune bench -i $g --config $O/tuned_new2.csv --device gpu -o $O/after.csv > $O/bench.txt 2> $O/bench.err; echo "bench rc=$?"
.carry/cktune compare --vs-baseline $O/after.csv --json > $O/vs_blaslt.json 2>/dev/null
python3 -c "import json; d=json.load(open('$O/vs_blaslt.json')); print('vs cuBLASLt', round(d['summary']['geomean'],3), {k: round(v['geomean'],3) for k,v in d['by_class'].items()})"
python3 - $O <<'PY'
import csv, sys, math
O = sys.argv[1]
key = lambda r: (r["M"], r["N"], r["K"])
t = {key(r): float(r["us"]) for r in csv.DictReader(open(f"{O}/tuned_new2.csv"))}
b = {key(r): float(r["us"]) for r in csv.DictReader(open(f"{O}/after.csv")) if r["role"] == "dispatch"}
r = [b[k] / t[k] for k in t if k in b]
print(f"bench/tune: {sum(abs(x - 1) <= 0.10 for x in r)} of {len(r)} within 10%, geomean {math.exp(sum(map(math.log, r)) / len(r)):.3f}, "
      f"range {min(r):.3f}-{max(r):.3f}")
PY
rm -rf $O/*.cktune
