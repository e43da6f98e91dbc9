#!/usr/bin/env bash
# Session 48, call 8 (issue #11): a probe for call 6's reading. What are stage 2's weight requests before its wait worth?
# base = HEAD; ne = HEAD + `call8_probe_no_early_requests.diff` (stage 2 asks for no weights before its wait; every
# k-block's weights are requested in its loop after the wait). The DeepSeek-V3 TP8 tune cut to the `_q_r` pipeline with
# the 128-column adding stage 2, the two binaries taking turns, three rounds (session 41's ab41.sh, ab.py's table).
set -u
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
KRE='s1wg_bm64_n256_st4_q_r[+]cktune_moe_s2wg_bm64_n128_st4_acc_g1$' \
  VARIANTS="base:cktune_base:- ne:cktune_ne:-" TOKENS="1 2 4 8 16 64" ROUNDS=3 TUNE_S=100 \
  bash docs/perf/data/moe_2026-11-30_s41/ab41.sh 2>&1 | grep -v "^$" | head -30
