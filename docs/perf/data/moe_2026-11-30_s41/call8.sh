#!/usr/bin/env bash
# Session 41, call 8: call 6's stamps (probe_kernels.diff + probe_test.cpp.txt, with the routing stage 1 of call 7 and
# a stamp where its producer's wait for the sorting returns), the `_q` pipeline at 8 and 16 tokens, routing off / on.
set -u
bash scripts/unpack_carry.sh > /dev/null
for r in 0 1; do
  echo "=== CKTUNE_MOE_S1_ROUTE=$r"
  CKTUNE_MOE_S1_ROUTE=$r PROBE_T="8 16" timeout 120 .carry/cktune_gpu_tests --gtest_filter='GpuMoeProbe.*' > $OUT/probe_route$r.txt 2>&1
  grep -v "^\[\|^Running\|^Note" $OUT/probe_route$r.txt | grep -A13 "run 1\|pipeline" | head -60
done
