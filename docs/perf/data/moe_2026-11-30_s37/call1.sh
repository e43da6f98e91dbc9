#!/usr/bin/env bash
# Session 37, call 1: GpuMoe.* on the new binary (the resident stage-2 rows `_r<R>` and the one-launch kernel's
# warp-uniform warp index); the one-launch kernel base/new at 1, 2 and 4 tokens; the resident rows against their
# plain twins at 512...16384 DeepSeek-V3 tokens (new binary, RROUNDS rounds, default 1). .carryz: cktune.xz, cktune_gpu_tests.xz,
# cktune_base.xz.
set -u
O=/tmp/s31
TESTS=1 GF='GpuMoe.*' ROUNDS=2 TOKENS="1 2 4" VARIANTS="base:cktune_base:- new:cktune:-" KRE='1stage' TUNE_S=90 \
  bash docs/perf/data/moe_2026-11-29_s31/ab.sh
mkdir -p /tmp/s37 && cp -r $O /tmp/s37/fused && rm -rf $O
TOKENS="512 1024 2048 4096 8192 16384" ROUNDS=${RROUNDS:-1} VARIANTS="new:cktune:-" TUNE_S=200 \
  KRE='s1wg_bm(64_n256|128_n128)_st4[+]cktune_moe_s2wg_bm(64|128)_n(128|256)_st4_so_acc_g1(_r[48])?$' \
  bash docs/perf/data/moe_2026-11-29_s31/ab.sh
cp -r $O /tmp/s37/res
python3 docs/perf/data/moe_2026-11-30_s37/s2r.py /tmp/s37/res/profile_new_*.csv | tee /tmp/s37/s2r.txt
(cd /tmp && tar czf "$OUT/s37.tgz" s37)
