#!/usr/bin/env bash
# Session 42, call 9: the final code (stage 1 routing its first tile itself at decode sizes, kRoute): (a) the GEMM and MoE GPU tests;
# (b) the DeepSeek-V3 TP8 grid (scripts/gpu_moe.sh: tune, merge --check, bench against the default; never-tuned 3, 5,
# 6, 1536, 3072, 6144, 12288 tokens), as session 41 call 4. .carryz: cktune.xz, cktune_gpu_tests.xz.
set -u
bash scripts/unpack_carry.sh > /dev/null
mkdir -p /tmp/c9
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.limit,temperature.gpu --format=csv,noheader
s=$(date +%s)
timeout -s KILL 240 .carry/cktune_gpu_tests --gtest_filter='GpuBlockscale.*:*GpuPerToken*:GpuMoe.*' > /tmp/c9/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(( $(date +%s) - s )) s"
grep -E "^\[  (PASSED|FAILED) |FAILED|instance runs passed|pipelines" /tmp/c9/gpu_tests.log | head -20
gzip -c /tmp/c9/gpu_tests.log > "$OUT/gpu_tests.log.gz"
mkdir -p /tmp/moe
OUT=/tmp/moe TESTS_FILTER='-' SKIP_TESTS=1 UNTUNED=1 UNTUNED_TOKENS="3 5 6 1536 3072 6144 12288" TUNE_TIMEOUT=200 \
  BENCH_TIMEOUT=120 bash scripts/gpu_moe.sh dsv3_tp8 > /tmp/c9/moe_run.log 2>&1
echo "moe rc=$?"
tail -32 /tmp/moe/moe_summary.txt
(cd /tmp && tar czf "$OUT/moe.tgz" moe)
