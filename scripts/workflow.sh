#!/usr/bin/env bash
# The tuning workflow end to end, as a user runs it: capture -> bench before -> tune -> bench after ->
# compare -> report. Usage: scripts/workflow.sh CKTUNE OUTDIR [LOG] [--device gpu]
# On the CPU (default) the captured a8w8_blockscale shapes are cut to the decode sizes M <= MAX_M
# (default 4) so the run takes minutes on a laptop-class CPU; on a GPU every captured shape is tuned.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:?usage: workflow.sh CKTUNE OUTDIR [LOG] [--device gpu]}
out=${2:?usage: workflow.sh CKTUNE OUTDIR [LOG] [--device gpu]}
log=${3:-$root/tests/data/logs/server_mixed.log}
device=${DEVICE:-cpu}
max_m=${MAX_M:-4}
iters=${ITERS:-5}
rm -rf "$out"; mkdir -p "$out"
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
cd "$out"

echo "== 1/6 capture: shapes from $log"
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

echo "== 2/6 bench before: what the runtime runs today (no tuned table: the default heuristic)"
"$bin" bench -i ${family}_untuned_gemm.csv "${common[@]}" -o before.csv --log-dir logs --tag before > before.txt

echo "== 3/6 tune: every candidate verified and timed, fastest correct one kept"
"$bin" tune -i ${family}_untuned_gemm.csv -o ${family}_tuned_gemm.csv -o2 profile.csv "${common[@]}" --no-progress

echo "== 4/6 bench after: with the tuned table"
"$bin" bench -i ${family}_untuned_gemm.csv --config ${family}_tuned_gemm.csv "${common[@]}" -o after.csv \
  --log-dir logs --tag after > after.txt

echo "== 5/6 compare"
"$bin" compare before.csv after.csv | tee compare.txt

echo "== 6/6 report"
"$bin" report --before before.csv --after after.csv --tuned ${family}_tuned_gemm.csv --counts capture.json \
  -o report.md --html report.html
sed -n '/^## Verdict/,/^## Environment/p' report.md | sed '$d'   # the verdict and the command to deploy
"$bin" merge --check ${family}_tuned_gemm.csv
echo
echo "report: $out/report.md (and report.html); tuned table: $out/${family}_tuned_gemm.csv"
