#!/usr/bin/env bash
# One device call for the trust checks (docs/perf.md, "Tune and bench agree"): the GPU tests, then on the
# 48-shape DeepSeek-V3 grid and on the 40-shape ragged set: tune, then `bench --config --against
# default` (before and after interleaved in one run), and per shape the agreement of tune's winner time
# with bench's time of the same kernel. First it runs the shapes of the 2026-11 report (tune, bench, every
# candidate of one of them). Runs on the GPU machine from the repository
# root with the binaries in .carry/ (scripts/build_portable.sh); writes to $OUT (or ./gpu-out).
# Usage: scripts/gpu_agreement.sh [grid|ragged|both]
set -uo pipefail
final=${OUT:-$PWD/gpu-out}
mkdir -p "$final"
out=$(mktemp -d)
root=$PWD
bin=$root/.carry/cktune
gtests=$root/.carry/cktune_gpu_tests
which=${1:-both}
summary=$out/summary.txt
: > "$summary"
snapshot() { cp "$summary" "$final/summary.txt" 2>/dev/null; tar czf "$final/agreement.tgz" -C "$out" . 2>/dev/null; }
step() { snapshot; echo; echo "=== $* ($(date -u +%H:%M:%S))" | tee -a "$summary"; }

# Per shape: tune's winner time (tuned table `us`) against bench's dispatch time of the same kernel, by
# `cktune report` (its "Tune and bench agree" section; the after file must hold before and after rows, as
# `bench --against` writes them).
agreement() {  # agreement <tuned.csv> <after.csv> <label>
  local md="${2%.csv}_report.md"
  "$bin" report --after "$2" --tuned "$1" -o "$md" > /dev/null 2>&1 || echo "$3: report failed" | tee -a "$summary"
  echo "$3:" | tee -a "$summary"
  awk '/^## /{f = ($0 == "## Tune and bench agree"); next} f && NF' "$md" | tee -a "$summary"
}

if [ "${SKIP_PRELUDE:-0}" != 1 ]; then
step "device"
nvidia-smi --query-gpu=index,name,memory.total,clocks.max.sm,driver_version --format=csv | tee -a "$summary"
"$bin" --version 2>&1 | head -3 | tee -a "$summary"
step "gpu tests"
# The MoE sorting tests (~320 s with their timing table) run in scripts/gpu_moe.sh.
timeout 300 "$gtests" --gtest_brief=1 --gtest_filter='-GpuMoeSorting.*' 2>&1 | tail -25 | tee -a "$summary"

cd "$out"
printf 'M,N,K\n100,576,7168\n56,4096,7168\n24,1536,7168\n96,576,14336\n' > report4.csv
printf 'M,N,K\n100,576,7168\n' > one.csv
# The shapes of the 2026-11 report (split-K kernels whose counters cuBLASLt had overwritten; the old buffer
# layout and the switch that brought it back are gone since split-K reduces in a cluster): tune, bench,
# and every candidate of one of them must pass.
step "report shapes"
timeout 150 "$bin" tune -i report4.csv -o tuned_report.csv --device gpu --confirm-margin 0 --no-progress \
  > tune_report.txt 2> tune_report.err
echo "tune rc=$?" | tee -a "$summary"
grep -c "timed launches" tune_report.err | sed 's/^/log lines about wrong timed launches: /' | tee -a "$summary"
timeout 100 "$bin" bench -i report4.csv --device gpu --config tuned_report.csv --against default -o after_report.csv > /dev/null \
  2> after_report.err
agreement tuned_report.csv after_report.csv "report shapes: tune vs bench"
timeout 100 "$bin" bench -i one.csv --family a8w8_blockscale --device gpu --all-candidates -o all_report.csv \
  > /dev/null 2> all_report.err
echo "bench --all-candidates M=100 N=576 K=7168: rows not passed (not_supported left out):" | tee -a "$summary"
awk -F, 'NR==1{for(i=1;i<=NF;i++)h[$i]=i} NR>1 && $h["verdict"] != "passed" && $h["verdict"] != "not_supported" {print "  " $h["kernel_name"] ": " $h["verdict"] " " substr($h["reason"],1,90)}' \
  all_report.csv | head -12 | tee -a "$summary"
fi

cd "$out"
run_set() {  # run_set <name> <shapes.csv>
  local name=$1 shapes=$2
  step "tune $name"
  local t0 t1
  t0=$(date +%s.%N)
  timeout 330 "$bin" tune -i "$shapes" -o "tuned_$name.csv" --profile-file "profile_$name.csv" --device gpu --json \
    > "tune_$name.json" 2> "tune_$name.err"
  echo "tune $name rc=$? wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s" | tee -a "$summary"
  tail -4 "tune_$name.err" | tee -a "$summary"
  step "bench $name --config tuned --against default (interleaved)"
  timeout 300 "$bin" bench -i "$shapes" --device gpu --config "tuned_$name.csv" --against default -o "after_$name.csv" \
    > "bench_$name.txt" 2> "bench_$name.err"
  echo "bench $name rc=$?" | tee -a "$summary"
  agreement "tuned_$name.csv" "after_$name.csv" "$name: tune vs bench"
  "$bin" compare "after_$name.csv" > "compare_$name.txt" 2>&1
  tail -12 "compare_$name.txt" | tee -a "$summary"
}
case "$which" in
  grid) run_set grid "$root/configs/grids/a8w8_blockscale_untuned_gemm_dsv3_grid.csv" ;;
  ragged) run_set ragged "$root/configs/grids/a8w8_blockscale_untuned_gemm_ragged.csv" ;;
  *) run_set grid "$root/configs/grids/a8w8_blockscale_untuned_gemm_dsv3_grid.csv"
     run_set ragged "$root/configs/grids/a8w8_blockscale_untuned_gemm_ragged.csv" ;;
esac
snapshot
