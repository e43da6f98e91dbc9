#!/usr/bin/env bash
# Session 31: the DeepSeek-V3 TP8 tune cut to $TOKENS and to the pipelines matching $KRE, run in turn by each of
# $VARIANTS for $ROUNDS rounds, then ab.py's table per token count. A variant is name:binary:env, e.g.
# new4:cktune:CKTUNE_MOE_S1_PREFETCH=4 (binary under .carry/, env "-" for none). On the GPU machine with .carryz carried.
set -u
O=/tmp/s31; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
if [ -n "${TESTS:-}" ]; then
  s=$(date +%s)
  timeout -s KILL ${TEST_S:-300} .carry/cktune_gpu_tests --gtest_filter="${GF:-GpuMoe.*}" > $O/gpu_tests.log 2>&1
  echo "gpu tests rc=$? $(( $(date +%s) - s )) s"
  grep -E "^\[  (PASSED|FAILED) |FAILED|pipelines" $O/gpu_tests.log | head -20
fi
g=configs/grids/moe_2stages_untuned_fmoe_${MODEL:-dsv3_tp8}.csv
{ head -1 $g; for t in ${TOKENS:-8 16 32 64 128 256 512 1024}; do grep "^$t," $g; done; } > $O/grid.csv
for r in $(seq 1 ${ROUNDS:-2}); do
  for v in ${VARIANTS:-base:cktune_base:- new:cktune:-}; do
    IFS=: read -r b x e <<< "$v"
    s=$(date +%s)
    env ${e/#-/} timeout ${TUNE_S:-120} .carry/$x tune -i $O/grid.csv --family moe_2stages -o $O/tuned_${b}_$r.csv \
      -o2 $O/profile_${b}_$r.csv --device gpu --no-progress --retime-tolerance ${TOL:-0.1} \
      --kernels "${KRE:-s1wg_bm64_n128_st[46][+]cktune_moe_s2wg_bm64_n128_st4.*acc}" > $O/tune_${b}_$r.txt 2> $O/tune_${b}_$r.err
    echo "tune $b ($e .carry/$x) round $r rc=$? $(( $(date +%s) - s )) s"
  done
done
python3 docs/perf/data/moe_2026-11-29_s30/ab.py $O
(cd /tmp && tar czf "$OUT/s31.tgz" s31)
