#!/usr/bin/env bash
# Session 46, calls 10+ (issue #11, where a slow board loses): PROBE, not committed code. Session 45's stage-1 exit
# stamps (`../moe_2026-11-30_s45/stamps_probe.diff` applied to a05d0ea, `stamps_probe_test.cpp.txt` as
# tests/gpu/moe_probe_test.cpp, probing `_q_r` and `_q`) on whatever board the call gets; run until a fast and a slow
# board have both been seen, to set their stage-1 exit spreads side by side.
set -u
O=/tmp/s46p; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
PROBE_T="8 16" timeout -s KILL 120 .carry/cktune_gpu_tests --gtest_filter='GpuMoeProbe.*' > $O/probe.txt 2>&1
echo "probe rc=$?"
grep -E "pipeline|stage 1: exit|stage 1: first request|s1: first full|stage 2: past|stage 2: exit|run 0" $O/probe.txt | head -60
cp $O/probe.txt "$OUT/"
