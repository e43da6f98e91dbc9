#!/usr/bin/env bash
# Session 47, call 8 (issue #11): PROBE, not committed code. Session 45's stage-1 exit stamps
# (`../moe_2026-11-30_s45/stamps_probe.diff`, its one rejected hunk placed by hand after 9572fea's first-fill lines,
# `stamps_probe_test.cpp.txt` as tests/gpu/moe_probe_test.cpp) on 9572fea's kernels: how far the first weight request
# now follows the routing (session 46's call 10: p50 1.5 us).
set -u
O=/tmp/s47p; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
PROBE_T="8" timeout -s KILL 150 .carry/cktune_gpu_tests --gtest_filter='GpuMoeProbe.*' > $O/probe.txt 2>&1
echo "probe rc=$?"
grep -E "pipeline|run 0|stage 1: entry|after barrier|first request|routed|first full|producer waited|consumers waited|stage 1: exit|stage 2" $O/probe.txt | head -40
cp $O/probe.txt "$OUT/"
