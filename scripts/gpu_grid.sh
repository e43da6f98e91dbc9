#!/usr/bin/env bash
# One device call: check the GPU build, then run the whole workflow on the 48-shape DeepSeek-V3 grid.
# Runs on the GPU machine from the repository root with the binaries carried in .carry/ (built here
# by scripts/build_portable.sh). Everything it writes goes to $OUT (or ./gpu-out). Nothing is kept
# between runs. Usage: scripts/gpu_grid.sh [MP_LIST]   e.g. "1 2" to also time tune with --mp 2.
set -uo pipefail
final=${OUT:-$PWD/gpu-out}
out=$(mktemp -d)   # the device tool brings back at most 8 files: everything is packed at the end
mkdir -p "$final"
bin=$PWD/.carry/cktune
gtests=$PWD/.carry/cktune_gpu_tests
grid=$PWD/configs/grids/a8w8_blockscale_untuned_gemm_dsv3_grid.csv
mps=${1:-1}
# Results come back even when the device tool's time limit cuts the run: snapshot after every step.
snapshot() { cp "$summary" "$final/summary.txt" 2>/dev/null; tar czf "$final/gpu_run.tgz" -C "$out" . 2>/dev/null; }
step() { snapshot; echo; echo "=== $* ($(date -u +%H:%M:%S))" | tee -a "$summary"; }
summary=$out/summary.txt
: > "$summary"
T_BENCH=${T_BENCH:-150} T_TUNE=${T_TUNE:-330} T_FAULT=${T_FAULT:-90}

step "device"; nvidia-smi --query-gpu=index,name,memory.total,clocks.max.sm,driver_version --format=csv | tee -a "$summary"
step "discover"; "$bin" discover | tee "$out/discover.txt"; "$bin" discover --json > "$out/discover.json"
step "gpu tests"; timeout 300 "$gtests" --gtest_brief=1 2>&1 | tail -25 | tee -a "$summary"

cd "$out"
step "faults on real kernels"
printf 'M,N,K\n16,2112,7168\n1024,4096,7168\n' > a8w8_blockscale_untuned_gemm.csv
names=$("$bin" list --device gpu --family a8w8_blockscale | awk '{print $5}' | head -6 | tr '\n' ' ')
set -- $names
timeout "$T_FAULT" "$bin" tune -i a8w8_blockscale_untuned_gemm.csv -o faults.csv -o2 faults_profile.csv --device gpu --timeout 10 \
  --inject-fault "hang@$1,crash@$2,wrong@$3,partial@$4" --no-progress > faults.txt 2> faults.err
echo "fault run rc=$? (hang@$1 crash@$2 wrong@$3 partial@$4)" | tee -a "$summary"
grep -E "timed_out|faulted|restarting" faults.err | head -6 | tee -a "$summary"
awk -F, 'NR>1 {print $4","$5","$6","$14","$23}' faults_profile.csv | grep -E "$1|$2|$3|$4" | head -8 | tee -a "$summary"
cat faults.txt | tee -a "$summary"
step "bench before (default heuristic + cuBLASLt baseline)"
timeout "$T_BENCH" "$bin" bench -i "$grid" --device gpu -o before.csv --log-dir logs --tag before > before.txt 2> before.err
echo "bench before rc=$?" | tee -a "$summary"

for mp in $mps; do
  step "tune --mp $mp"
  rm -rf "tuned_mp$mp.csv"*
  t0=$(date +%s.%N)
  timeout "$T_TUNE" "$bin" tune -i "$grid" -o "tuned_mp$mp.csv" -o2 "profile_mp$mp.csv" --device gpu --mp "$mp" --json ${TUNE_ARGS:-} \
    > "tune_mp$mp.json" 2> "tune_mp$mp.err"
  rc=$?
  t1=$(date +%s.%N)
  echo "tune --mp $mp rc=$rc wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}') s" | tee -a "$summary"
  tail -3 "tune_mp$mp.err" | tee -a "$summary"
done
first=$(echo $mps | awk '{print $1}')
cp "tuned_mp$first.csv" a8w8_blockscale_tuned_gemm.csv 2>/dev/null

step "bench after (tuned table)"
timeout "$T_BENCH" "$bin" bench -i "$grid" --device gpu --config a8w8_blockscale_tuned_gemm.csv -o after.csv --log-dir logs --tag after \
  > after.txt 2> after.err
echo "bench after rc=$?" | tee -a "$summary"
step "compare"
"$bin" compare before.csv after.csv > compare.txt 2>&1; tail -30 compare.txt | tee -a "$summary"
"$bin" compare before.csv after.csv --json > compare.json 2>/dev/null
"$bin" report --before before.csv --after after.csv --tuned a8w8_blockscale_tuned_gemm.csv -o report.md --html report.html \
  > /dev/null 2> report.err

ls -la
snapshot
