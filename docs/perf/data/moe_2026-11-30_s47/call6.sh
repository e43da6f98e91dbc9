#!/usr/bin/env bash
# Session 47, call 6 (issue #11): the kept form of call 5 (v3: stage 1's first tile placed without the walk's
# divisions, stage 2's producer loading its first ids before the wait) as the product: the fused-MoE GPU tests, then
# the DeepSeek-V3 TP8 grid tuned and benched against the default (scripts/gpu_moe.sh), with bench against tune.
set -u
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
timeout 200 .carry/cktune_gpu_tests --gtest_brief=1 --gtest_filter='GpuMoe.*' > $OUT/gpu_tests.txt 2>&1
echo "gpu tests rc=$?"; grep -E "PASSED|FAILED|tests ran" $OUT/gpu_tests.txt | head
O=$OUT/moe; mkdir -p $O
OUT=$O SKIP_TESTS=1 bash scripts/gpu_moe.sh dsv3_tp8 > /dev/null 2>&1
echo "gpu_moe rc=$?"
tail -22 $O/moe_summary.txt
rm -rf $O/tuned_fmoe_dsv3_tp8_uniform.csv.cktune
