#!/usr/bin/env bash
# Runs on the GPU machine (device `run`, with .carry carried): SASS check, the harness on ragged
# shapes, the cuBLASLt scale-layout probe, then the 48-shape DeepSeek-V3 grid. Logs go to $OUT.
#   scripts/gpu_dev_run.sh [quick|grid|all]   (default all)
set -uo pipefail
cd "$(dirname "$0")/.."
B=.carry/gemm_dev
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
what=${1:-all}
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,utilization.gpu,memory.used --format=csv
if command -v cuobjdump >/dev/null; then
  echo "SASS matrix/TMA instructions:"
  cuobjdump --dump-sass "$B" | grep -oE "(QGMMA|HMMA|UTMALDG|LDGSTS)[.A-Z0-9x]*" | sort | uniq -c | sort -rn | head -12
fi
if [[ $what == quick || $what == all ]]; then
  timeout -s KILL 120 "$B" --shapes "1,2112,7168;17,2112,7168;130,4096,7168;1000,7168,2048;333,2112,512;4096,4096,7168" \
    --csv "$OUT/quick.csv" 2>&1 | tee "$OUT/quick.log"
  echo "--- cuBLASLt with x scales K-major (layout probe) ---"
  CKTUNE_BLASLT_XSCALE_KMAJOR=1 timeout -s KILL 60 "$B" --shapes "130,4096,7168" --filter none 2>&1 | grep -E "blaslt|WRONG" | head -4
fi
if [[ $what == grid || $what == all ]]; then
  timeout -s KILL 360 "$B" --grid --csv "$OUT/grid.csv" > "$OUT/grid.log" 2>&1
  echo "grid exit: $?"
  sed -n '/^shape(M,N,K)/,$p' "$OUT/grid.log"
fi
