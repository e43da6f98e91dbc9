#!/usr/bin/env bash
# Session 41, call 7: stage 1 routing itself from topk_ids at decode sizes (Args::route_stage1; the knob
# CKTUNE_MOE_S1_ROUTE=0 keeps it on the sorting's outputs): (a) GpuMoe.*; (b) the DeepSeek-V3 TP8 tune cut to the
# decode pipelines at 8, 16, 32, 64 tokens (64: 512 pairs, past the limit, the control), off and on in turn, two rounds.
set -u
bash scripts/unpack_carry.sh > /dev/null
timeout -s KILL 240 .carry/cktune_gpu_tests --gtest_filter='GpuMoe.*' > /tmp/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "^\[  (PASSED|FAILED) |FAILED|pipelines" /tmp/gpu_tests.log | head -20
gzip -c /tmp/gpu_tests.log > "$OUT/gpu_tests.log.gz"
ROUNDS=2 TOKENS="8 16 32 64" TUNE_S=120 TOL=0.1 \
KRE='s1wg_bm64_n(128|256)_st4(_q)?[+]cktune_moe_s2wg_bm64_n128_st4_acc_g1$' \
VARIANTS="base:cktune:CKTUNE_MOE_S1_ROUTE=0 route:cktune:-" bash docs/perf/data/moe_2026-11-30_s41/ab41.sh > /tmp/ab7.txt 2>&1
head -14 /tmp/ab7.txt
python3 docs/perf/data/moe_2026-11-30_s41/q41.py /tmp/s41 > /tmp/q7.txt
sed -n 1,40p /tmp/q7.txt
cp /tmp/ab7.txt /tmp/q7.txt "$OUT/"
