#!/usr/bin/env bash
# Session 36, call 4: the wgmma MoE stages with their warpgroup index made warp-uniform (`warp_uniform`) against the
# committed kernels: the DeepSeek-V3 TP8 tune cut to the wgmma pipelines, base (.carry/cktune_base) and new
# (.carry/cktune) in turn, $ROUNDS rounds (../moe_2026-11-29_s31/ab.sh), then pf.py per stage-1 row. On the GPU machine
# with .carryz (cktune.xz, cktune_base.xz) carried.
set -u
TESTS= ROUNDS=${ROUNDS:-2} TUNE_S=${TUNE_S:-150} TOKENS=${TOKENS:-8 16 512 2048 4096 16384} \
  VARIANTS="base:cktune_base:- new:cktune:-" \
  KRE=${KRE:-'s1wg_bm(64|128)_n(128|256)_st[46](_p2)?[+]cktune_moe_s2wg_bm(64|128)_n(128|256)_st4(_so)?_acc_g[14]'} \
  bash docs/perf/data/moe_2026-11-29_s31/ab.sh
for v in base new; do echo "== $v"; python3 docs/perf/data/moe_2026-11-29_s31/pf.py /tmp/s31/profile_${v}_*.csv; done > /tmp/s31/pf.txt
(cd /tmp && tar czf "$OUT/s31.tgz" s31)
