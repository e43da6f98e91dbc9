#!/usr/bin/env bash
# Session 26, fused MoE with the CUDA-core decode stages (`s1v`, `s2v`). On the GPU machine with .carryz carried:
#   TESTS=1  the MoE GPU tests (every pipeline against the reference on ragged shapes, skewed routing included);
#   TOKENS="8 16 ..." a DeepSeek-V3 TP8 grid of those token counts through scripts/gpu_moe.sh (tune, merge --check,
#            interleaved bench against the default, the per-token table); FULL=1 the whole bundled grid instead.
set -u
O=/tmp/s26m; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
if [ -n "${TESTS:-}" ]; then
  s=$(date +%s)
  timeout -s KILL 300 .carry/cktune_gpu_tests --gtest_filter="${GF:-GpuMoe*}" > $O/gpu_tests.log 2>&1
  echo "gpu tests rc=$? $(( $(date +%s) - s )) s"; grep -E "^\[  (PASSED|FAILED) |FAILED|pipelines:" $O/gpu_tests.log | head -20
fi
model=dsv3_tp8
if [ -n "${TOKENS:-}" ]; then  # this copy of the tree only: the bundled grid cut to $TOKENS
  g=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
  { head -1 $g; for t in $TOKENS; do grep "^$t," $g; done; } > $O/grid.csv && cp $O/grid.csv $g
fi
if [ -n "${TOKENS:-}${FULL:-}" ]; then
  SKIP_TESTS=1 OUT=$O/moe timeout 540 bash scripts/gpu_moe.sh $model > $O/moe.log 2>&1
  echo "gpu_moe rc=$?"; grep -vE '^\s*$' $O/moe/moe_summary.txt | tail -32
fi
(cd /tmp && tar czf "$OUT/s26m.tgz" s26m)
