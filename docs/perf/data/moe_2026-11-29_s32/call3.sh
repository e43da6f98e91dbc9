#!/usr/bin/env bash
# Session 32, call 3 (on the GPU machine, repository root, .carryz carried): the GEMM and MoE GPU test suites at the
# committed code, then the Qwen3-235B-A22B TP4 MoE grid (tune, merge --check, bench against the default), all
# tarred into $OUT/call3.tgz.
set -u
bash scripts/unpack_carry.sh > /dev/null
O=/tmp/call3; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
s=$(date +%s)
timeout -s KILL ${TEST_S:-300} .carry/cktune_gpu_tests --gtest_brief=1 \
  --gtest_filter="${GF:-GpuBlockscale.*:*GpuPerToken*:GpuMoe.*}" > $O/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(( $(date +%s) - s )) s"; grep -E "^\[  (PASSED|FAILED) |FAILED|tests ran" $O/gpu_tests.log | head -20
OUT=$O/moe SKIP_TESTS=1 TUNE_TIMEOUT=230 BENCH_TIMEOUT=100 scripts/gpu_moe.sh ${MODELS:-qwen3_235b_tp4} > $O/moe.log 2>&1
echo "moe rc=$?"; grep -E "tune rc|check:|agreement|geomean" $O/moe/moe_summary.txt | head -12
(cd /tmp && tar czf "$OUT/call3.tgz" call3)
