#!/usr/bin/env bash
# Session 25, on the GPU machine with .carryz carried (cktune, cktune_gpu_tests): the GEMM GPU tests (every
# instance on the ragged shapes, the multicast rows included), then the 48-shape grid (AGREE_SET=both: and the
# 40-shape ragged set) tuned and benched (scripts/gpu_agreement.sh), then from the tune profiles the own best
# against cuBLASLt and the multicast rows against the other own rows.
set -u
D=docs/perf/data/gemm_2026-11-29_s25
SKIP_DEV=1 AGREE=1 GF="${GF:-GpuBlockscale.*:*GpuPerToken*}" bash docs/perf/data/gemm_2026-11-25_s23/s23.sh
for set in grid ragged; do
  p=$(tar tzf /tmp/s23/agree/agreement.tgz 2>/dev/null | grep "profile_$set.csv$" | head -1)
  [ -n "$p" ] || continue
  tar xzf /tmp/s23/agree/agreement.tgz -C /tmp "$p"
  echo "== $set"; python3 docs/perf/data/gemm_2026-11-25_s23/own_vs_blaslt.py "/tmp/$p"; python3 $D/rows_rank.py "/tmp/$p" wgmmap2m; python3 $D/rows_rank.py "/tmp/$p" wgmmap2t_
done
