#!/usr/bin/env bash
# Session 43, call 1: stage 2 claiming its tiles at run time (`_dyn` rows). GPU tests (GpuMoe.*), then the DeepSeek-V3
# TP8 tune cut to the block_m 64 decode pipelines, static and `_dyn` stage 2, base = the binary of 6fbc4ad (the
# kernels of HEAD) against new, three rounds.
set -u
bash scripts/unpack_carry.sh > /dev/null
timeout 300 .carry/cktune_gpu_tests --gtest_filter='GpuMoe.*' > /tmp/tests1.txt 2>&1
echo "tests rc=$?"; grep -E "^\[  (FAILED|PASSED) |FAILED \]|comparisons|pipelines:|tile counter|_dyn.*outside" /tmp/tests1.txt | head -40
ROUNDS=3 TOKENS="8 16 32 64 512 4096" TUNE_S=150 TOL=0.1 \
KRE='s1wg_bm64_n(128|256)_st4(_q)?[+]cktune_moe_s2wg_bm64_n(128_st4(_so)?_acc_g1|256_st4_so_acc_g1)(_dyn)?$' \
VARIANTS="base:cktune_base:- new:cktune:-" bash docs/perf/data/moe_2026-11-30_s41/ab41.sh > /tmp/ab1.txt 2>&1
grep -E "^tune|^NVIDIA" /tmp/ab1.txt
python3 docs/perf/data/moe_2026-11-30_s43/dyn43.py /tmp/s41 > /tmp/d1.txt
cp /tmp/ab1.txt /tmp/tests1.txt /tmp/d1.txt "$OUT/"
grep -E "_dyn \|" /tmp/d1.txt | head -60
grep -A200 "best pipeline per tune" /tmp/d1.txt
