#!/usr/bin/env bash
# Session 41, call 1: the decode pipeline's L2 hints as probe knobs (CKTUNE_PROBE_W1_EF=1: stage 1's weight loads
# evict-first; CKTUNE_PROBE_W2_L2_MB=N: the sorting asks for N MiB of the used experts' w2 in L2), the DeepSeek-V3 TP8
# tune cut to the tuned 8-64-token pipeline, every variant in turn, two rounds.
set -u
P='s1wg_bm64_n128_st4[+]cktune_moe_s2wg_bm64_n128_st4_acc_g1$'
ROUNDS=${ROUNDS:-2} TOKENS="${TOKENS:-8 16 32 64}" TUNE_S=60 KRE="$P" TOL=0.1 \
VARIANTS="${VARIANTS:-base:cktune_base:- new:cktune:- ef:cktune:CKTUNE_PROBE_W1_EF=1 pf24:cktune:CKTUNE_PROBE_W2_L2_MB=24 ef16:cktune:CKTUNE_PROBE_W1_EF=1,CKTUNE_PROBE_W2_L2_MB=16 ef24:cktune:CKTUNE_PROBE_W1_EF=1,CKTUNE_PROBE_W2_L2_MB=24 ef32:cktune:CKTUNE_PROBE_W1_EF=1,CKTUNE_PROBE_W2_L2_MB=32}" \
  bash docs/perf/data/moe_2026-11-30_s41/ab41.sh > /tmp/ab1.txt 2>&1
cat /tmp/ab1.txt | head -60
cp /tmp/ab1.txt "$OUT/"
