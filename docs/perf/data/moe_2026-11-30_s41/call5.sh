#!/usr/bin/env bash
# Session 41, call 5 (2x H200): the `_q` build on the Qwen3-235B-A22B TP4 and Qwen3.5-397B-A17B grids,
# tuned on two GPUs (MP=2), as session 38's call 3. .carryz: cktune.xz, cktune_gpu_tests.xz.
set -u
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.limit,temperature.gpu --format=csv,noheader
mkdir -p /tmp/moeq
OUT=/tmp/moeq MP=2 SKIP_TESTS=1 TUNE_TIMEOUT=200 BENCH_TIMEOUT=100 bash scripts/gpu_moe.sh qwen3_235b_tp4 qwen35_397b \
  > /tmp/moeq/run.log 2>&1
echo "moe rc=$?"
grep -E "tune rc|check:|bench/tune|tuned vs default|^\| [124] \|" /tmp/moeq/moe_summary.txt
(cd /tmp && tar czf "$OUT/moeq.tgz" moeq)
