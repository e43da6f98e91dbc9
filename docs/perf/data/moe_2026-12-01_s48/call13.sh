#!/usr/bin/env bash
# Session 48, call 13 (issue #11): PROBE, not committed code. Call 11 again with a third protocol: a sync, then a 30 us spin
# kernel before each pipeline's first event (no host launch latency inside the timed interval, nothing before to overlap).
set -u
O=/tmp/s48r; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
PROBE_T="8 4" timeout -s KILL 200 .carry/cktune_gpu_tests --gtest_filter='GpuMoeProbe.*' > $O/probe.txt 2>&1
echo "probe rc=$?"
grep -E "weight set|pipeline " $O/probe.txt
cp $O/probe.txt "$OUT/"
