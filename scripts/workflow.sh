#!/usr/bin/env bash
# The tuning workflow end to end, as a user runs it: capture -> tune -> bench (before and after in one
# run, interleaved) -> compare -> report. Usage: scripts/workflow.sh CKTUNE OUTDIR [LOG]   (DEVICE=gpu)
# On the CPU (default) the captured a8w8_blockscale shapes are cut to the decode size M <= MAX_M
# (default 1) so the run takes minutes on a 2-core machine; on a GPU every captured shape is tuned.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:?usage: workflow.sh CKTUNE OUTDIR [LOG] [--device gpu]}
out=${2:?usage: workflow.sh CKTUNE OUTDIR [LOG] [--device gpu]}
log=${3:-$root/tests/data/logs/server_mixed.log}
device=${DEVICE:-cpu}
max_m=${MAX_M:-1}
iters=${ITERS:-5}
min_gain=${MIN_GAIN:-10}
rm -rf "$out"; mkdir -p "$out"
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
cd "$out"

echo "== 1/5 capture: shapes from $log"
"$bin" capture "$log" -o untuned --json > capture.json   # the call counts the report weights speedups by
"$bin" capture "$log" -o untuned --dry-run                # the readable summary, for the console
family=a8w8_blockscale
shapes=untuned/${family}_untuned_gemm.csv
if [ "$device" = cpu ]; then
  awk -F, -v m="$max_m" 'NR == 1 || $1 + 0 <= m' "$shapes" > ${family}_untuned_gemm.csv
  echo "   (CPU run: $(($(wc -l < ${family}_untuned_gemm.csv) - 1)) of $(($(wc -l < "$shapes") - 1)) shapes, those with M <= $max_m)"
else
  cp "$shapes" ${family}_untuned_gemm.csv
fi
common=(--device "$device" --iters "$iters" --warmup 1 --seed 1)

echo "== 2/5 tune: every candidate verified and timed, fastest correct one kept (a row only where it beats"
echo "   the untuned default by --min-improvement ${min_gain}%: elsewhere the runtime keeps its default)"
"$bin" tune -i ${family}_untuned_gemm.csv -o ${family}_tuned_gemm.csv -o2 profile.csv "${common[@]}" --no-progress \
  --min-improvement "$min_gain"

echo "== 3/5 bench: the tuned table (after) and the untuned default (before), interleaved in one run"
"$bin" bench -i ${family}_untuned_gemm.csv --config ${family}_tuned_gemm.csv --against default "${common[@]}" \
  -o after.csv --log-dir logs --tag after > after.txt

echo "== 4/5 compare (improved / regressed only outside the measured noise)"
"$bin" compare after.csv | tee compare.txt

echo "== 5/5 report"
"$bin" report --after after.csv --tuned ${family}_tuned_gemm.csv --counts capture.json \
  -o report.md --html report.html
sed -n '/^## Verdict/,/^## Environment/p' report.md | sed '$d'   # the verdict and the command to deploy
"$bin" merge --check ${family}_tuned_gemm.csv
echo
echo "report: $out/report.md (and report.html); tuned table: $out/${family}_tuned_gemm.csv"
