#!/usr/bin/env bash
# Session 44, call 1: the `_r` stage-1 rows (the routing form as rows of their own, picked by the tune):
# (a) GPU tests; (b) DeepSeek-V3 TP8 grid as session 43 call 3; (c) Qwen3-235B-A22B TP4 grid. .carryz: cktune.xz, cktune_gpu_tests.xz.
set -u
bash scripts/unpack_carry.sh > /dev/null
mkdir -p /tmp/c1
nvidia-smi --query-gpu=name,pci.bus_id,vbios_version,driver_version,clocks.sm,power.limit,temperature.gpu --format=csv,noheader
s=$(date +%s)
timeout -s KILL 240 .carry/cktune_gpu_tests --gtest_filter='GpuBlockscale.*:*GpuPerToken*:GpuMoe.*' > /tmp/c1/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(( $(date +%s) - s )) s"
grep -E "^\[  (PASSED|FAILED) |FAILED|instance runs passed|pipelines|comparisons" /tmp/c1/gpu_tests.log | head -20
gzip -c /tmp/c1/gpu_tests.log > "$OUT/gpu_tests.log.gz"
mkdir -p /tmp/moe
OUT=/tmp/moe TESTS_FILTER='-' SKIP_TESTS=1 UNTUNED=1 UNTUNED_TOKENS="3 5 6 1536 3072 6144 12288" TUNE_TIMEOUT=200 \
  BENCH_TIMEOUT=120 bash scripts/gpu_moe.sh dsv3_tp8 > /tmp/c1/moe_run.log 2>&1
echo "moe rc=$?"
tail -32 /tmp/moe/moe_summary.txt
(cd /tmp && tar czf "$OUT/moe.tgz" moe)
mkdir -p /tmp/moeq
OUT=/tmp/moeq SKIP_TESTS=1 TUNE_TIMEOUT=150 BENCH_TIMEOUT=90 bash scripts/gpu_moe.sh qwen3_235b_tp4 > /tmp/c1/moeq_run.log 2>&1
echo "moe qwen rc=$?"
grep -E "tune rc|check:|agreement|tuned vs default" /tmp/moeq/moe_summary.txt
(cd /tmp && tar czf "$OUT/moeq.tgz" moeq)
