#!/usr/bin/env bash
# Session 37, call 5: GpuMoe.* on the new binary, then two changes to the prefill stage 2 that call 4's profile pointed
# at (the consumers rarely wait for data; both warpgroups store at once while the tensor cores idle): (a) the fence of
# the two-half rows only where the stage is waited for (every `_n256` block_m 128 row), (b) the consumer warpgroups
# taking turns at the tensor cores (`_pp` rows). The DeepSeek-V3 TP8 tune cut to those pipelines, base (HEAD 661b226)
# and new in turn, two rounds; s2pp.py. .carryz: cktune.xz (new), cktune_base.xz, cktune_gpu_tests.xz.
set -u
TESTS=1 GF='GpuMoe.*' ROUNDS=2 TOKENS="512 1024 2048 4096 8192 16384" VARIANTS="base:cktune_base:- new:cktune:-" TUNE_S=200 \
  KRE='s1wg_bm(64_n256|128_n128)_st4[+]cktune_moe_s2wg_bm(64|128)_n(128|256)_st4_so_acc_g1(_pp)?$' \
  bash docs/perf/data/moe_2026-11-29_s31/ab.sh
python3 docs/perf/data/moe_2026-11-30_s37/s2pp.py /tmp/s31 | tee /tmp/s31/s2pp.txt
(cd /tmp && tar czf "$OUT/s31.tgz" s31)
