#!/usr/bin/env bash
# Session 48, call 10 (issue #11): PROBE, not committed code. Where `_q_rs` (call 6) loses its 6% at 8 tokens: session 47's
# stamps (`../moe_2026-11-30_s47/call8_stamps_probe_on_9572fea.diff`) with call 6's patch, and session 45's probe test
# (`../moe_2026-11-30_s45/stamps_probe_test.cpp.txt` as tests/gpu/moe_probe_test.cpp, its pipelines `_q_r` and `_q_rs`,
# the reference time stage 1's first CTA past its barrier): both pipelines back to back as the tuner runs them, event
# medians of 41 and three stamped runs each, at 8 and 4 tokens.
set -u
O=/tmp/s48p; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
PROBE_T="8 4" timeout -s KILL 150 .carry/cktune_gpu_tests --gtest_filter='GpuMoeProbe.*' > $O/probe.txt 2>&1
echo "probe rc=$?"
grep -E "pipeline|run 0|stage 1: entry|after barrier|first request|routed|first full|producer waited|consumers waited|stage 1: exit|stage 2|sort:" $O/probe.txt | head -70
cp $O/probe.txt "$OUT/"
