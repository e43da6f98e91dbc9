#!/usr/bin/env bash
# Session 20, call 7: GEMM GPU tests (with the fast-accumulation error test), DeepSeek-R1 TP8's tuned table of
# call 6 benched against cuBLASLt run with its own fp8 fast accumulation (CKTUNE_BLASLT_FAST_ACCUM=1), then
# shard 1 of 3 of the whole study sweep's tune (scripts/gpu_ptpc.sh).
set -u
bash scripts/unpack_carry.sh >/dev/null
mkdir -p /tmp/s20b
timeout 300 .carry/cktune_gpu_tests --gtest_filter='*GpuPerToken*:GpuBlockscale.*' > /tmp/s20b/gt.txt 2>&1
echo "gtests rc=$?"; grep -E "PASSED|FAILED|worst|runs passed|Failure" /tmp/s20b/gt.txt | head -20
OUT=/tmp/s20b/fa MS=all PAIRS=deepseek-r1@8 TUNED_IN=gpu-in/r1_fast_tuned.csv CKTUNE_BLASLT_FAST_ACCUM=1 \
  bash scripts/gpu_ptpc.sh a8w8 > /tmp/s20b/fa.log 2>&1
echo "fast-accum bench rc=$?"; grep -E "bench rc|^  (all|decode|medium|prefill) |deepseek-r1 " /tmp/s20b/fa/ptpc_a8w8_summary.txt | head -12
cp /tmp/s20b/fa/ptpc_a8w8.tgz $OUT/r1_vs_blaslt_fast_accum.tgz
cp /tmp/s20b/gt.txt $OUT/
OUT=$OUT MS=all SHARD=1/3 TUNE_TIMEOUT=480 bash scripts/gpu_ptpc.sh a8w8 > /tmp/s20b/shard1.log 2>&1
echo "shard1 rc=$?"; cat $OUT/ptpc_a8w8_summary.txt | tail -5
