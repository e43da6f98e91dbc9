#!/usr/bin/env bash
# Session 47, call 4 (issue #11): which part of call 3's change slowed the 256-column stage 2 (CG = 2) by 11-14%.
# base = HEAD's kernels; v1 = stage 1's first tile placed without the walk only; v2 = v1 + stage 2's consumers loading
# their first tile's ids before the wait (call 3's "new" = v2 + the producer's first fetch before the wait). The
# DeepSeek-V3 TP8 tune cut to the decode pipelines, the three taking turns, two rounds.
set -u
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
KRE='s1wg_bm64_n(128|256)_st4(_q)?(_r)?[+]cktune_moe_s2wg_bm64_n(128_st4_acc_g1|256_st4_so_acc_g4)$' \
  VARIANTS="base:cktune_base:- v1:cktune_v1:- v2:cktune_v2:-" TOKENS="8 16 64 512" ROUNDS=2 TUNE_S=120 \
  bash docs/perf/data/moe_2026-11-30_s41/ab41.sh 2>&1 | grep -v "^$" | head -24
