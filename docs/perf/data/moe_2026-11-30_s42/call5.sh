#!/usr/bin/env bash
# Session 42, call 5: the A/B of call 4 with the binary of HEAD (9a99969, no routing code) as the base, so that the
# new binary's producer register spills (ptxas: 24-116 bytes in the wgmma stage-1 kernels) are measured too:
# base = HEAD, off = new binary with CKTUNE_MOE_STAGE1_ROUTE=0, new = new binary. Three rounds, taking turns.
set -u
ROUNDS=3 TOKENS="8 16 32 64 512" TUNE_S=120 TOL=0.1 \
KRE='s1wg_bm64_n(128|256)_st4(_q)?[+]cktune_moe_s2wg_bm64_n(128_st4_acc_g1|256_st4_so_acc_g[14])$|s1wg_bm128_n128_st4[+]cktune_moe_s2wg_bm128_n128_st4_acc_g1$' \
VARIANTS="base:cktune_base:- off:cktune:CKTUNE_MOE_STAGE1_ROUTE=0 new:cktune:-" bash docs/perf/data/moe_2026-11-30_s41/ab41.sh > /tmp/ab5.txt 2>&1
grep -E "rc=" /tmp/ab5.txt | head -3; grep -A9 "best pipeline (us" /tmp/ab5.txt | head -11
cp /tmp/ab5.txt "$OUT/"
python3 docs/perf/data/moe_2026-11-30_s42/ratio42.py /tmp/s41 > /tmp/r5.txt; grep -A7 "best pipeline per tune" /tmp/r5.txt | cut -c1-400; cp /tmp/r5.txt "$OUT/"
