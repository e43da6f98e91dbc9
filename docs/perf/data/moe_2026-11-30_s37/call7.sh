#!/usr/bin/env bash
# Session 37, call 7: fewer instructions a stored value in the wgmma stage 2 (call 4's profile: the consumers' promotion
# and stores set the pace): the staged rows written by stmatrix (four 8x8 bf16 tiles an instruction, from the
# accumulator fragments) instead of one 4-byte store a pair, and the routed weight folded into the rows' activation
# scales (a multiply a k-block instead of one an output). GpuMoe.*, then the DeepSeek-V3 TP8 tune cut to the wgmma
# pipelines at 8...16384 tokens, base (HEAD c11c6fa) and new in turn, two rounds; s2pp.py.
# .carryz: cktune.xz (new), cktune_base.xz, cktune_gpu_tests.xz.
set -u
TESTS=1 GF='GpuMoe.*' ROUNDS=2 TOKENS="8 64 512 2048 4096 8192 16384" VARIANTS="base:cktune_base:- new:cktune:-" TUNE_S=200 \
  KRE='s1wg_bm(64_n128|64_n256|128_n128)_st4[+]cktune_moe_s2wg_bm(64|128)_n(128|256)_st4(_so)?_acc_g1$' \
  bash docs/perf/data/moe_2026-11-29_s31/ab.sh
python3 docs/perf/data/moe_2026-11-30_s37/s2pp.py /tmp/s31 | tee /tmp/s31/s2pp.txt
(cd /tmp && tar czf "$OUT/s31.tgz" s31)
