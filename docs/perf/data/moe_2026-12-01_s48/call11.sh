#!/usr/bin/env bash
# Session 48, call 11 (issue #11): PROBE, not committed code. Call 10's harness timed `_q_rs` faster than `_q_r`, the
# tune 6% slower. The same two pipelines under four protocols: a synchronisation after each pipeline or none (back to
# back, an event pair around each, as the tuner's measure()), one weight set or four taking turns (as the tuner's
# rotation at 8 tokens), 41 timed pipelines each, at 8 and 4 DeepSeek-V3 tokens.
set -u
O=/tmp/s48q; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
PROBE_T="8 4" timeout -s KILL 200 .carry/cktune_gpu_tests --gtest_filter='GpuMoeProbe.*' > $O/probe.txt 2>&1
echo "probe rc=$?"
grep -E "weight set|pipeline " $O/probe.txt
cp $O/probe.txt "$OUT/"
