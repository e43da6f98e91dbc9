#!/usr/bin/env bash
# Session 38, call 2: the build to keep (sc.diff, and the expert word of session 37's diff for the two-half stage-2 rows
# only): (a) the GEMM and MoE GPU tests; (b) the DeepSeek-V3 TP8 tune cut to the wgmma pipelines at 8...16384 tokens,
# base (HEAD) and new in turn, two rounds; (c) the DeepSeek-V3 TP8 grid (scripts/gpu_moe.sh: tune, merge --check,
# bench against the default; never-tuned 3, 5, 6, 1536, 3072, 6144, 12288 tokens).
# .carryz: cktune.xz (new), cktune_base.xz (HEAD), cktune_gpu_tests.xz (new).
set -u
bash scripts/unpack_carry.sh > /dev/null
mkdir -p /tmp/c2
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.limit,temperature.gpu --format=csv,noheader
s=$(date +%s)
timeout -s KILL 240 .carry/cktune_gpu_tests --gtest_filter='GpuBlockscale.*:*GpuPerToken*:GpuMoe.*' > /tmp/c2/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(( $(date +%s) - s )) s"
grep -E "^\[  (PASSED|FAILED) |FAILED|instance runs passed|pipelines" /tmp/c2/gpu_tests.log | head -20
gzip -c /tmp/c2/gpu_tests.log > "$OUT/gpu_tests.log.gz"
ROUNDS=2 TOKENS="8 64 512 2048 4096 8192 16384" TUNE_S=200 VARIANTS="base:cktune_base:- new:cktune:-" \
  KRE='s1wg_bm(64_n128|64_n256|128_n128)_st4[+]cktune_moe_s2wg_bm(64|128)_n(128|256)_st4(_so)?_acc_g1$' \
  bash docs/perf/data/moe_2026-11-29_s31/ab.sh > /tmp/c2/ab.txt 2>&1
head -14 /tmp/c2/ab.txt
python3 docs/perf/data/moe_2026-11-30_s38/s2ab.py /tmp/s31 > /tmp/c2/s2ab.txt
cp /tmp/c2/ab.txt /tmp/c2/s2ab.txt "$OUT/"
mkdir -p /tmp/moe
OUT=/tmp/moe TESTS_FILTER='-' SKIP_TESTS=1 UNTUNED=1 UNTUNED_TOKENS="3 5 6 1536 3072 6144 12288" TUNE_TIMEOUT=200 \
  BENCH_TIMEOUT=120 bash scripts/gpu_moe.sh dsv3_tp8 > /tmp/c2/moe_run.log 2>&1
echo "moe rc=$?"
tail -32 /tmp/moe/moe_summary.txt
(cd /tmp && tar czf "$OUT/moe.tgz" moe)
