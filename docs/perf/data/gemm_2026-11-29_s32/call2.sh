#!/usr/bin/env bash
# Session 32, call 2 (on the GPU machine, repository root; .carryab/gemm_dev.xz and .carryz carried):
# gemm_dev on the grid's six (N, K) at M = 1, 2, 4, 8, 16 (every block-scale instance verified and timed against one
# streaming read; `mmac` summarised against the rest), then the DeepSeek-V3 TP8 MoE grid (no tests: the tests binary does not fit the carry beside gemm_dev): tune, bench,
# everything tarred into $OUT.
set -u
DEV=1 MS="${MS:-1 2 4 8 16}" PREFIX=mmac GEMM_DEV_S=${GEMM_DEV_S:-280} bash docs/perf/data/gemm_2026-11-29_s26/s26.sh
if [ -n "${MOE:-}" ]; then
  mkdir -p .carry && xz -dc .carrym/cktune.xz > .carry/cktune && chmod +x .carry/cktune
  OUT=/tmp/moe SKIP_TESTS=1 TUNE_TIMEOUT=200 BENCH_TIMEOUT=100 scripts/gpu_moe.sh dsv3_tp8 > /tmp/moe.log 2>&1
  echo "moe rc=$?"; grep -E "tune rc|first timing|PASSED|FAILED|agreement|geomean|vLLM" /tmp/moe/moe_summary.txt | head -20
  cp /tmp/moe.log /tmp/moe/ && (cd /tmp && tar czf "$OUT/moe.tgz" moe)
fi
