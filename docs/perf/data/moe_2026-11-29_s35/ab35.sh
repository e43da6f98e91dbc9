#!/usr/bin/env bash
# Session 35, call 4: the trimmed consumer loop (shared-memory addresses converted once; stage 1's scales in two sets
# of registers that take turns) against the committed kernels: the DeepSeek-V3 TP8 tune cut to the wgmma pipelines,
# base (.carry/cktune_base) and new (.carry/cktune) in turn, $ROUNDS rounds (../moe_2026-11-29_s31/ab.sh), then ncu's
# source counters of the new stage 1 (src35.sh). On the GPU machine with .carryz (cktune.xz, cktune_base.xz) carried.
set -u
TESTS= ROUNDS=${ROUNDS:-2} TUNE_S=${TUNE_S:-150} TOKENS=${TOKENS:-8 512 2048 4096 16384} \
  VARIANTS="base:cktune_base:- new:cktune:-" \
  KRE=${KRE:-'s1wg_bm(64|128)_n(128|256)_st[46](_p2)?[+]cktune_moe_s2wg_bm(64|128)_n(128|256)_st4(_so)?_acc_g[14]'} \
  bash docs/perf/data/moe_2026-11-29_s31/ab.sh
for v in base new; do echo "== $v"; python3 docs/perf/data/moe_2026-11-29_s31/pf.py /tmp/s31/profile_${v}_*.csv; done > /tmp/s31/pf.txt
(cd /tmp && tar czf "$OUT/s31.tgz" s31)
[ "${SRC:-1}" = 1 ] && bash docs/perf/data/moe_2026-11-29_s35/src35.sh
