#!/usr/bin/env bash
# Session 37, call 8: stage 2's consumers fetch the next tile's ids after issuing this tile's first wgmma, not before
# (call 4's source counters: an R2UR of the next tile's expert id right after its load held each tile's start, ~3.4% of
# the samples, and the loop head another 2.4%). GpuMoe.*, then the DeepSeek-V3 TP8 tune cut to the wgmma pipelines at
# 8...16384 tokens, base (HEAD) and new in turn, two rounds; s2pp.py.
# .carryz: cktune.xz (new), cktune_base.xz, cktune_gpu_tests.xz.
set -u
TESTS=1 GF='GpuMoe.*' ROUNDS=2 TOKENS="8 64 512 2048 4096 8192 16384" VARIANTS="base:cktune_base:- new:cktune:-" TUNE_S=200 \
  KRE='s1wg_bm(64_n128|64_n256|128_n128)_st4[+]cktune_moe_s2wg_bm(64|128)_n(128|256)_st4(_so)?_acc_g1$' \
  bash docs/perf/data/moe_2026-11-29_s31/ab.sh
python3 docs/perf/data/moe_2026-11-30_s37/s2pp.py /tmp/s31 | tee /tmp/s31/s2pp.txt
(cd /tmp && tar czf "$OUT/s31.tgz" s31)
