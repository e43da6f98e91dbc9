#!/usr/bin/env bash
# Session 37, call 6: the final build (HEAD: the one-launch kernel's warp-uniform warp index, 661b226): the GEMM and MoE
# GPU tests, then the DeepSeek-V3 TP8 fused-MoE grid (scripts/gpu_moe.sh: tune, merge --check, bench against the
# default, four never-tuned token counts). .carryz: cktune.xz, cktune_gpu_tests.xz.
set -u
bash scripts/unpack_carry.sh > /dev/null
mkdir -p /tmp/c6
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.limit,temperature.gpu --format=csv,noheader
s=$(date +%s)
timeout -s KILL 240 .carry/cktune_gpu_tests --gtest_filter='GpuBlockscale.*:*GpuPerToken*:GpuMoe.*' > /tmp/c6/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(( $(date +%s) - s )) s"
grep -E "^\[  (PASSED|FAILED) |FAILED|instance runs passed|pipelines" /tmp/c6/gpu_tests.log | head -20
mkdir -p /tmp/moe
OUT=/tmp/moe TESTS_FILTER='-' SKIP_TESTS=1 UNTUNED=1 UNTUNED_TOKENS="1536 3072 6144 12288" TUNE_TIMEOUT=200 BENCH_TIMEOUT=120 \
  bash scripts/gpu_moe.sh dsv3_tp8 > /tmp/c6/moe_run.log 2>&1
echo "moe rc=$?"
tail -30 /tmp/moe/moe_summary.txt
gzip -c /tmp/c6/gpu_tests.log > "$OUT/gpu_tests.log.gz"
(cd /tmp && tar czf "$OUT/moe.tgz" moe)
