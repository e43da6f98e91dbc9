#!/usr/bin/env bash
# Session 42, call 3 (probe build + CKTUNE_PROBE_TILED): the same pipelines with the weights read as if each TMA box
# were stored contiguously (the map over a 128-byte pitch, tile coordinates; timing only, the results are wrong), to
# see whether the row-major boxes' access pattern holds the stream below the calibration read's rate.
set -u
bash scripts/unpack_carry.sh > /dev/null
for r in 1 2; do
  for v in rowmajor tiled; do
    e=""; [ $v = tiled ] && e="CKTUNE_PROBE_TILED=1"
    env $e PROBE_T="8 16 64" .carry/cktune_gpu_tests --gtest_filter='GpuMoeProbe.*' > /tmp/probe3_${v}_$r.txt 2>&1
    echo "$v $r rc=$?"
  done
done
for f in /tmp/probe3_*_1.txt /tmp/probe3_*_2.txt; do echo "== $f"; grep -E "pipeline" $f; done
for f in /tmp/probe3_rowmajor_1.txt /tmp/probe3_tiled_1.txt; do echo "== $f"; grep -A16 "8 tokens" $f | grep -E "first req|first full|stage 1: exit|stage 2: past|stage 2: exit"; done
cp /tmp/probe3_*.txt "$OUT/"
