#!/usr/bin/env bash
# Session 45, call 7 (issue #11, what holds 8 tokens): PROBE, not committed code. Session 42's clock stamps
# (`stamps_probe.diff`: ../moe_2026-11-30_s42/probe_final_untested.diff adapted to 001412e, one hunk by hand, and
# `stamps_probe_test.cpp.txt` as tests/gpu/moe_probe_test.cpp, probing the `_q_r` and `_q` stage 1) on the final
# kernels: the spread of stage 1's CTA exits at 8 and 16 DeepSeek-V3 tokens, which decides whether a balanced stage 1
# (NEXT.md item 1) is worth building.
set -u
O=/tmp/s45p; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
PROBE_T="8 16" timeout -s KILL 120 .carry/cktune_gpu_tests --gtest_filter='GpuMoeProbe.*' > $O/probe.txt 2>&1
echo "probe rc=$?"
grep -E "pipeline|stage 1: exit|stage 1: first request|s1: first full|stage 2: past|stage 2: exit|run 0" $O/probe.txt | head -60
cp $O/probe.txt "$OUT/"
