#!/usr/bin/env bash
# Session 26: the CUDA-core decode kernels (`gemv`, `gemvh`). On the GPU machine, with .carryab/gemm_dev.xz
# carried (DEV) and/or .carryz (cktune, cktune_gpu_tests; TESTS):
#   DEV=1   gemm_dev on the grid's six (N,K) at M = $MS: every block-scale instance and cuBLASLt, verified, against
#           one streaming read of the weights; per shape the best instance, the best `gemv*`, the best other.
#   TESTS=1 the GEMM GPU tests (every instance of every fp8/int8 table on ragged shapes).
#   AGREE=1 the 48-shape grid's tune and tune/bench agreement (scripts/gpu_agreement.sh grid).
set -u
O=/tmp/s26; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
if [ -n "${TESTS:-}${AGREE:-}" ]; then bash scripts/unpack_carry.sh > /dev/null; fi
if [ -n "${DEV:-}" ]; then mkdir -p .carry; xz -dc .carryab/gemm_dev.xz > .carry/gemm_dev.dev; chmod +x .carry/gemm_dev.dev; fi
if [ -n "${TESTS:-}" ]; then
  s=$(date +%s)
  timeout -s KILL 300 .carry/cktune_gpu_tests --gtest_filter="${GF:-GpuBlockscale.*:*GpuPerToken*}" > $O/gpu_tests.log 2>&1
  echo "gpu tests rc=$? $(( $(date +%s) - s )) s"; grep -E "^\[  (PASSED|FAILED) |FAILED|instance runs passed" $O/gpu_tests.log | head -30
fi
if [ -n "${DEV:-}" ]; then
  shapes=""
  for nk in ${NKS:-2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048}; do
    for m in ${MS:-1 2 4 8}; do shapes+="$m,$nk;"; done
  done
  s=$(date +%s)
  timeout -s KILL ${GEMM_DEV_S:-300} .carry/gemm_dev.dev --iters ${ITERS:-60} ${FILTER:+--filter $FILTER} \
    --shapes "${shapes%;}" --csv $O/decode.csv > $O/decode.log 2>&1
  echo "gemm_dev rc=$? $(( $(date +%s) - s )) s; wrong: $(grep -ciE 'wrong|fail' $O/decode.log)"
  python3 docs/perf/data/gemm_2026-11-29_s26/decode_summary.py $O/decode.log ${PREFIX:-gemv}
fi
if [ -n "${AGREE:-}" ]; then
  SKIP_PRELUDE=1 OUT=$O/agree timeout 330 bash scripts/gpu_agreement.sh grid > $O/agree.log 2>&1
  echo "agreement rc=$?"; grep -vE "^\s*$" $O/agree/summary.txt | tail -25
  mkdir -p $O/ag && tar xzf $O/agree/agreement.tgz -C $O/ag
  python3 -c "import json; j = json.load(open('$O/ag/tune_grid.json')); print('grid tune', j['seconds'], 's, first result', j['first_timing_s'], 's,', j['candidate_results'], 'candidate results')"
fi
(cd /tmp && tar czf "$OUT/s26.tgz" s26)
