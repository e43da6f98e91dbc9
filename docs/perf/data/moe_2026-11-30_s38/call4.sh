#!/usr/bin/env bash
# Session 38, call 4: the two-half stage-2 rows take their weight scales from a header the producer writes into the
# stage that holds a tile's first k-block (call 3's source counters: ptxas moved the scales, warp-uniform, into uniform
# registers right after their global loads, 5.8% of stage 2's samples at 16384 tokens). (a) GpuMoe.* on the new build;
# (b) the DeepSeek-V3 TP8 tune cut to the wgmma pipelines at 8...16384 tokens, base (call 2's build) and new in turn,
# two rounds; (c) the DeepSeek-V3 TP8 grid with the new build (scripts/gpu_moe.sh, never-tuned 3, 5, 6, 1536, 3072,
# 6144, 12288 tokens). .carryz: cktune.xz (new), cktune_base.xz (call 2's), cktune_gpu_tests.xz (new).
set -u
bash scripts/unpack_carry.sh > /dev/null
mkdir -p /tmp/c4
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.limit,temperature.gpu --format=csv,noheader
s=$(date +%s)
timeout -s KILL 120 .carry/cktune_gpu_tests --gtest_filter='GpuMoe.*' > /tmp/c4/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(( $(date +%s) - s )) s"
grep -E "^\[  (PASSED|FAILED) |FAILED|pipelines" /tmp/c4/gpu_tests.log | head -10
gzip -c /tmp/c4/gpu_tests.log > "$OUT/gpu_tests.log.gz"
ROUNDS=2 TOKENS="8 64 512 2048 4096 8192 16384" TUNE_S=200 VARIANTS="base:cktune_base:- new:cktune:-" \
  KRE='s1wg_bm(64_n128|64_n256|128_n128)_st4[+]cktune_moe_s2wg_bm(64|128)_n(128|256)_st4(_so)?_acc_g1$' \
  bash docs/perf/data/moe_2026-11-29_s31/ab.sh > /tmp/c4/ab.txt 2>&1
sed -n 6,14p /tmp/c4/ab.txt
python3 docs/perf/data/moe_2026-11-30_s38/s2ab.py /tmp/s31 > /tmp/c4/s2ab.txt
cp /tmp/c4/ab.txt /tmp/c4/s2ab.txt "$OUT/"
mkdir -p /tmp/moe
OUT=/tmp/moe TESTS_FILTER='-' SKIP_TESTS=1 UNTUNED=1 UNTUNED_TOKENS="3 5 6 1536 3072 6144 12288" TUNE_TIMEOUT=200 \
  BENCH_TIMEOUT=120 bash scripts/gpu_moe.sh dsv3_tp8 > /tmp/c4/moe_run.log 2>&1
echo "moe rc=$?"
grep -E "tune rc|check:|^\| (8|4096|8192|16384) \||bench/tune|tuned vs default|vs vLLM|geomean|prefill" /tmp/moe/moe_summary.txt | cut -c1-200
(cd /tmp && tar czf "$OUT/moe.tgz" moe)
