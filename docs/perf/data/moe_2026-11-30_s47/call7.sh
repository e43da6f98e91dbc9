#!/usr/bin/env bash
# Session 47, call 7 (issue #11): the final binary (9572fea's kernels, b8beb42's bytes) on the Qwen3-235B-A22B TP4
# grid, which no call of this session tuned (E = 128, inter_dim 384: three k-blocks in stage 2): tune, merge --check,
# bench against the default with bench against tune, and 13 token counts never tuned (UNTUNED=1) against the default.
# Every pipeline of the tune and every bench row verified on the first launch and on what the timed launches wrote.
set -u
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
O=/tmp/s47c7; mkdir -p $O
OUT=$O SKIP_TESTS=1 UNTUNED=1 bash scripts/gpu_moe.sh qwen3_235b_tp4 > /dev/null 2>&1
echo "gpu_moe rc=$?"
cat $O/moe_summary.txt | grep -v "^$" | tail -60
rm -rf $O/*.cktune
tar czf $OUT/s47c7.tgz -C /tmp s47c7
