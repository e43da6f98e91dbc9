#!/usr/bin/env bash
# Session 55, call 1 (issue #13, the tuner's time): base = f3d97c5's cktune; new = base + the make_x_maps diff (each
# launch encodes only the x maps it reads) + the screen in two passes (every probe first, then the full screen of the
# candidates within the cut-off from the best probe). (1) GPU tests with the new binaries. (2) The 48-shape grid tuned
# new / base / new on this board (-v: seconds by phase per shape). (3) The new table benched (vs cuBLASLt in the same
# run, tune/bench agreement). (4) 1 x 32768 x 512: bench with tune's round protocol (2 warm-up + 20 launches) against
# the default (5 + 101): is a short batch faster?
set -u
bash scripts/unpack_carry.sh > /dev/null
mkdir -p .carry/base && xz -dc .carryz/base/cktune.xz > .carry/base/cktune && chmod +x .carry/base/cktune
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu,power.limit --format=csv,noheader
O=/tmp/s55c1; mkdir -p $O; g=configs/grids/a8w8_blockscale_untuned_gemm_dsv3_grid.csv
timeout 200 .carry/cktune_gpu_tests > $O/gtests.log 2>&1; echo "gtests rc=$?"; grep -E "^\[  (PASSED|FAILED)|instance runs passed" $O/gtests.log
for run in new1:.carry/cktune base:.carry/base/cktune new2:.carry/cktune; do
  n=${run%%:*}; B=${run#*:}
  timeout 150 $B tune -v -i $g -o $O/tuned_$n.csv -o2 $O/profile_$n.csv --device gpu --json > $O/tune_$n.json 2> $O/tune_$n.err
  echo "tune $n rc=$?"
  python3 -c "import json; d=json.load(open('$O/tune_$n.json')); print('  tune s', round(d['seconds'],1), 'first', round(d['first_timing_s'],2), d['candidate_results'], {k: round(v,1) for k,v in d['phases_s'].items()})"
done
python3 - $O <<'PY'
import csv, sys
O = sys.argv[1]
key = lambda r: (r["M"], r["N"], r["K"])
T = {n: {key(r): r for r in csv.DictReader(open(f"{O}/tuned_{n}.csv"))} for n in ("new1", "base", "new2")}
for a, b in (("new1", "base"), ("new2", "base"), ("new1", "new2")):
    same = sum(T[a][k]["kernelName"] == T[b][k]["kernelName"] for k in T[b] if k in T[a])
    r = [float(T[a][k]["us"]) / float(T[b][k]["us"]) for k in T[b] if k in T[a]]
    import math
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
printf 'M,N,K\n1,32768,512\n' > $O/one.csv
for p in "5 101" "2 20" "5 101" "2 20"; do
  set -- $p
  .carry/cktune bench -i $O/one.csv --config $O/tuned_new2.csv --device gpu --warmup $1 --iters $2 -o $O/one_$1_$2.csv > /dev/null 2>&1
  awk -F, -v p="$p" 'NR==1{for(i=1;i<=NF;i++){h[$i]=i}} NR>1{print "one warmup/iters " p, $h["role"], $h["us"], $h["us_p10"], $h["us_p90"], $h["kernelName"]}' $O/one_$1_$2.csv
done
grep "1,32768,512" $O/tuned_new*.csv $O/tuned_base.csv | cut -d, -f1-12 | head
rm -rf $O/*.cktune; (cd /tmp && tar czf "$OUT/s55c1.tgz" s55c1)
