#!/usr/bin/env bash
# Session 27, fused MoE stage 1 with paired k-blocks (`_p2`). On the GPU machine with .carryz carried:
#   TESTS=1  the MoE pipeline GPU tests (GF picks; default GpuMoe2Stages*: every pipeline against the reference);
#   TOKENS="512 ..." a DeepSeek-V3 TP8 grid of those token counts through scripts/gpu_moe.sh (tune, merge --check,
#            interleaved bench against the default, the per-token table); FULL=1 the whole bundled grid instead;
#   then p2_vs_plain.py over the tune's profile: per token count the best pipeline with and without `_p2`.
set -u
O=/tmp/s27m; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
if [ -n "${TESTS:-}" ]; then
  s=$(date +%s)
  timeout -s KILL 300 .carry/cktune_gpu_tests --gtest_filter="${GF:-GpuMoe2Stages*}" > $O/gpu_tests.log 2>&1
  echo "gpu tests rc=$? $(( $(date +%s) - s )) s"; grep -E "^\[  (PASSED|FAILED) |FAILED|pipelines" $O/gpu_tests.log | head -20
fi
model=${MODEL:-dsv3_tp8}
if [ -n "${TOKENS:-}" ]; then  # this copy of the tree only: the bundled grid cut to $TOKENS
  g=configs/grids/moe_2stages_untuned_fmoe_$model.csv
  { head -1 $g; for t in $TOKENS; do grep "^$t," $g; done; } > $O/grid.csv && cp $O/grid.csv $g
fi
if [ -n "${TOKENS:-}${FULL:-}" ]; then
  SKIP_TESTS=1 OUT=$O/moe timeout ${MOE_S:-540} bash scripts/gpu_moe.sh $model > $O/moe.log 2>&1
  echo "gpu_moe rc=$?"; grep -vE '^\s*$' $O/moe/moe_summary.txt | tail -24
  python3 docs/perf/data/moe_2026-11-29_s27/p2_vs_plain.py $O/moe/profile_${model}_uniform.csv ${SUFFIX:-_p2}
fi
(cd /tmp && tar czf "$OUT/s27m.tgz" s27m)
