#!/usr/bin/env bash
# Session 42, call 2: clock stamps of the 8- and 16-token pipelines (probe build: s42 probe diff), stage 1 routing its
# first tile itself (default) against CKTUNE_MOE_STAGE1_ROUTE=0, two processes each, alternating.
set -u
bash scripts/unpack_carry.sh > /dev/null
for r in 1 2; do
  for v in on off; do
    e=""; [ $v = off ] && e="CKTUNE_MOE_STAGE1_ROUTE=0"
    env $e PROBE_T="8 16" .carry/cktune_gpu_tests --gtest_filter='GpuMoeProbe.*' > /tmp/probe_${v}_$r.txt 2>&1
    echo "$v $r rc=$?"
  done
done
for f in /tmp/probe_on_1.txt /tmp/probe_off_1.txt; do echo "== $f"; grep -E "pipeline|run 0|stage|sort|s1:|s2:" $f | head -60; done
cp /tmp/probe_*.txt "$OUT/"
