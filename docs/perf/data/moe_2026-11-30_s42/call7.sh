#!/usr/bin/env bash
# Session 42, call 7: as call 6, the consumers also in one loop (the tile code once), the producer keeping
# one loop. GPU tests, then the A/B of call 5: base = HEAD (9a99969), off = new with CKTUNE_MOE_STAGE1_ROUTE=0, new.
set -u
bash scripts/unpack_carry.sh > /dev/null
timeout 300 .carry/cktune_gpu_tests --gtest_filter='GpuMoe.*' > /tmp/tests7.txt 2>&1
echo "tests rc=$?"; grep -E "^\[  (FAILED|PASSED) |FAILED \]|comparisons|pipelines:" /tmp/tests7.txt | head -20
ROUNDS=3 TOKENS="8 16 32 64 512" TUNE_S=120 TOL=0.1 \
KRE='s1wg_bm64_n(128|256)_st4(_q)?[+]cktune_moe_s2wg_bm64_n(128_st4_acc_g1|256_st4_so_acc_g[14])$|s1wg_bm128_n128_st4[+]cktune_moe_s2wg_bm128_n128_st4_acc_g1$' \
VARIANTS="base:cktune_base:- off:cktune:CKTUNE_MOE_STAGE1_ROUTE=0 new:cktune:-" bash docs/perf/data/moe_2026-11-30_s41/ab41.sh > /tmp/ab7.txt 2>&1
grep -A9 "best pipeline (us" /tmp/ab7.txt | head -11
cp /tmp/ab7.txt /tmp/tests7.txt "$OUT/"
python3 docs/perf/data/moe_2026-11-30_s42/ratio42.py /tmp/s41 > /tmp/r7.txt; cp /tmp/r7.txt "$OUT/"
grep -E "^\| (8|16|32) \| s1wg_bm64_n(128_st4|256_st4_q)\+s2wg_bm64_n128_st4_acc_g1" /tmp/r7.txt
