#!/usr/bin/env bash
# Session 42, call 1: stage 1 routing its first tile itself (route_first_tile). The MoE GPU tests (the new bit-for-bit
# test of route on against off, and every pipeline against the reference, where the pipeline routes), then the
# DeepSeek-V3 TP8 tune cut to the decode pipelines, CKTUNE_MOE_STAGE1_ROUTE=0 (off) and unset (on) taking turns.
set -u
bash scripts/unpack_carry.sh > /dev/null
timeout 300 .carry/cktune_gpu_tests --gtest_filter='GpuMoe.*:TileWalk*' > /tmp/tests1.txt 2>&1
echo "tests rc=$?"; grep -E "^\[  (FAILED|PASSED) |OK \]|FAILED \]|comparisons|pipelines:" /tmp/tests1.txt | head -20
ROUNDS=2 TOKENS="8 16 32 64 128" TUNE_S=120 TOL=0.1 \
KRE='s1wg_bm64_n(128|256)_st4(_q)?[+]cktune_moe_s2wg_bm64_n(128_st4_acc_g1|256_st4_so_acc_g[14])$|s1wg_bm128_n128_st4[+]cktune_moe_s2wg_bm128_n128_st4_acc_g1$' \
VARIANTS="base:cktune:CKTUNE_MOE_STAGE1_ROUTE=0 new:cktune:-" bash docs/perf/data/moe_2026-11-30_s41/ab41.sh > /tmp/ab1.txt 2>&1
head -12 /tmp/ab1.txt; grep -v "^tune" /tmp/ab1.txt | head -80
cp /tmp/ab1.txt /tmp/tests1.txt "$OUT/"
python3 docs/perf/data/moe_2026-11-30_s42/ratio42.py /tmp/s41 > /tmp/r1.txt; cat /tmp/r1.txt; cp /tmp/r1.txt "$OUT/"
