#!/usr/bin/env bash
# Session 44, call 4: EXPERIMENT, stage 2 asking L2 for the weights of its next N tiles (after the two in its ring)
# before its wait (CKTUNE_MOE_S2_L2_AHEAD=N, a run-time switch of this build only): session 41's A/B harness over the
# DeepSeek-V3 TP8 decode and prefill winners' pipelines, N = 0 (base), 3 and 8, two rounds.
set -u
nvidia-smi --query-gpu=name,pci.bus_id,serial,uuid,vbios_version --format=csv,noheader
VARIANTS="base:cktune:- a3:cktune:CKTUNE_MOE_S2_L2_AHEAD=3 a8:cktune:CKTUNE_MOE_S2_L2_AHEAD=8" ROUNDS=2 \
  TOKENS="8 16 64 512 4096" TUNE_S=150 \
  KRE='s1wg_bm64_n(128|256)_st4(_q)?(_r)?\+cktune_moe_s2wg_bm64_n(128_st4_acc_g1|256_st4_so_acc_g[14])$' \
  bash docs/perf/data/moe_2026-11-30_s41/ab41.sh
