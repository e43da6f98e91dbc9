#!/usr/bin/env bash
# Session 41, call 2: the `_q` stage 1 (the 256-row stage 1 re-quantising its own tile, no quantize launch):
# (a) GpuMoe.* on the new build; (b) the DeepSeek-V3 TP8 tune cut to the block_m 64 wgmma pipelines at 8...4096 tokens,
# base and new in turn, two rounds; q41.py's tables.
set -u
bash scripts/unpack_carry.sh > /dev/null
timeout -s KILL 240 .carry/cktune_gpu_tests --gtest_filter='GpuMoe.*' > /tmp/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "^\[  (PASSED|FAILED) |FAILED|pipelines|re-quantised in the kernel" /tmp/gpu_tests.log | head -20
gzip -c /tmp/gpu_tests.log > "$OUT/gpu_tests.log.gz"
ROUNDS=2 TOKENS="8 16 32 64 512 4096" TUNE_S=120 TOL=0.1 \
KRE='s1wg_bm64_n(128|256)_st4(_q)?[+]cktune_moe_s2wg_bm64_n(128_st4_acc_g1|256_st4_so_acc_g[14])$' \
VARIANTS="base:cktune_base:- new:cktune:-" bash docs/perf/data/moe_2026-11-30_s41/ab41.sh > /tmp/ab2.txt 2>&1
head -12 /tmp/ab2.txt
python3 docs/perf/data/moe_2026-11-30_s41/q41.py /tmp/s41 > /tmp/q2.txt
grep -A40 "_q / plain" /tmp/q2.txt
cp /tmp/ab2.txt /tmp/q2.txt "$OUT/"
