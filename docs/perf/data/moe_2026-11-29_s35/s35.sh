#!/usr/bin/env bash
# Session 35, one device call: the GPU tests of the MoE stages, then the DeepSeek-V3 TP8 tune cut to the wgmma
# pipelines with and without the re-quantising stage 1 (`_fq`), $ROUNDS rounds (../moe_2026-11-29_s31/ab.sh), the
# pairs side by side (pf.py, SUFFIX=fq), then (L2=1) session 34's prepared ncu of the L2 sectors by source.
# On the GPU machine with .carryz carried.
set -u
here=docs/perf/data/moe_2026-11-29_s35
TESTS=${TESTS-1} GF=${GF:-GpuMoe.*} TEST_S=${TEST_S:-200} ROUNDS=${ROUNDS:-2} TUNE_S=${TUNE_S:-150} \
  TOKENS=${TOKENS:-8 16 64 512 2048 4096 16384} VARIANTS="fq:cktune:-" \
  KRE=${KRE:-'s1wg_bm(64|128)_n(128|256)_st[46](_fq)?[+]cktune_moe_s2wg_bm(64|128)_n(128|256)_st4(_so)?_acc_g[14]'} \
  bash docs/perf/data/moe_2026-11-29_s31/ab.sh
SUFFIX=fq python3 docs/perf/data/moe_2026-11-29_s31/pf.py /tmp/s31/profile_fq_*.csv | tee /tmp/s31/fq.txt
(cd /tmp && tar czf "$OUT/s31.tgz" s31)
if [ "${L2:-0}" = 1 ]; then
  bash docs/perf/data/moe_2026-11-29_s34/l2src34.sh
fi
