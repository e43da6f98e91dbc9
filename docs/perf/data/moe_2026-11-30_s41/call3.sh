#!/usr/bin/env bash
# Session 41, call 3: the `_q` stage 1 with its epilogue reworked (the bf16 rows computed once, for routed rows only,
# stored and re-quantised from the same registers): the DeepSeek-V3 TP8 tune cut as in call 2, base and new, two rounds.
set -u
bash scripts/unpack_carry.sh > /dev/null
ROUNDS=2 TOKENS="8 16 512 4096" TUNE_S=120 TOL=0.1 \
KRE='s1wg_bm64_n(128|256)_st4(_q)?[+]cktune_moe_s2wg_bm64_n(128_st4_acc_g1|256_st4_so_acc_g[14])$' \
VARIANTS="base:cktune_base:- new:cktune:-" bash docs/perf/data/moe_2026-11-30_s41/ab41.sh > /tmp/ab3.txt 2>&1
head -10 /tmp/ab3.txt
python3 docs/perf/data/moe_2026-11-30_s41/q41.py /tmp/s41 > /tmp/q3.txt
grep -A30 "_q / plain" /tmp/q3.txt
cp /tmp/ab3.txt /tmp/q3.txt "$OUT/"
