#!/usr/bin/env bash
# Session 48, call 12 (issue #11, 2-64 tokens): from calls 10-11, the routing stage 1 scheduled at the sorting's entry.
# new = HEAD + `call12_stage1_at_sort_entry.diff`: where a routing stage 1 follows, the sorting lets it be scheduled at
# the sorting's entry (not after its wait) and publishes a generation once past its wait, which stage 1 acquires before
# it reads anything (then the stage's CTAs can be resident during the previous pipeline's last microseconds). base =
# HEAD. The fused-MoE GPU tests (new), then the DeepSeek-V3 TP8 tune cut to the routing decode pipelines, the two
# binaries taking turns, three rounds (session 41's ab41.sh, ab.py's table).
set -u
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
timeout 150 .carry/cktune_gpu_tests --gtest_brief=1 --gtest_filter='GpuMoe.*' > $OUT/gpu_tests.txt 2>&1
echo "gpu tests rc=$?"; grep -E "PASSED|FAILED|tests ran|distinct|comparisons|Failure" $OUT/gpu_tests.txt | head -12
KRE='s1wg_bm64_n(128|256)_st4(_q)?_r[+]cktune_moe_s2wg_bm64_n(128_st4_acc_g1|256_st4_so_acc_g[14])$' \
  VARIANTS="base:cktune_base:- new:cktune_new:-" TOKENS="2 4 8 16 32 64" ROUNDS=3 TUNE_S=100 \
  bash docs/perf/data/moe_2026-11-30_s41/ab41.sh 2>&1 | grep -v "^$" | head -16
