#!/usr/bin/env bash
# Session 47, call 3 (issue #11): the stages' first requests sooner. Stage 1's producer places its first tile without
# the walk's three 64-bit divisions (route_first_tile's column, or plain division) and builds the walk once the ring's
# first k-blocks are asked for; stage 2 loads its first tile's ids and expert (the sorting's) before its wait, so that
# after the wait only stage 1's rows and scales remain. The MoE GPU tests with the new binary, then the DeepSeek-V3
# TP8 tune cut to the decode pipelines, base (HEAD's kernels) and new taking turns, three rounds (session 41's ab41.sh).
set -u
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
timeout 120 .carry/cktune_gpu_tests --gtest_brief=1 --gtest_filter='GpuMoe.*:GpuMoeSort*' > /tmp/gt47.txt 2>&1
echo "gpu tests rc=$?"; tail -4 /tmp/gt47.txt
KRE='s1wg_bm64_n(128|256)_st4(_q)?(_r)?[+]cktune_moe_s2wg_bm64_n(128_st4_acc_g1|256_st4_so_acc_g4)$' \
  VARIANTS="base:cktune_base:- new:cktune:-" TOKENS="4 8 16 32 64 512" ROUNDS=3 TUNE_S=120 \
  bash docs/perf/data/moe_2026-11-30_s41/ab41.sh 2>&1 | grep -v "^$" | head -80
cp /tmp/gt47.txt $OUT/
