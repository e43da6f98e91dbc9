#!/usr/bin/env bash
# Session 30: the same DeepSeek-V3 TP8 tune, cut to $TOKENS and to the pipelines matching $KRE, run in turn by each of
# $VARIANTS, $ROUNDS rounds; then ab.py's table per token count. A variant is name:binary (call 1: base = .carry/cktune_base,
# the committed code, and new = .carry/cktune) or name:=bits (calls 2-: one experiment binary, CKTUNE_EXP=bits).
# On the GPU machine with .carryz carried. TESTS=1 first runs the MoE GPU tests ($GF) once per $TEST_EXP value.
set -u
O=/tmp/s30; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
if [ -n "${TESTS:-}" ]; then
  for x in ${TEST_EXP:-0}; do
    s=$(date +%s)
    CKTUNE_EXP=$x timeout -s KILL 300 .carry/cktune_gpu_tests --gtest_filter="${GF:-GpuMoe.*}" > $O/gpu_tests_exp$x.log 2>&1
    echo "gpu tests CKTUNE_EXP=$x rc=$? $(( $(date +%s) - s )) s"
    grep -E "^\[  (PASSED|FAILED) |FAILED|pipelines" $O/gpu_tests_exp$x.log | head -20
  done
fi
g=configs/grids/moe_2stages_untuned_fmoe_${MODEL:-dsv3_tp8}.csv
{ head -1 $g; for t in ${TOKENS:-1024 2048 4096 8192 16384}; do grep "^$t," $g; done; } > $O/grid.csv
for r in $(seq 1 ${ROUNDS:-2}); do
  for v in ${VARIANTS:-base:cktune_base new:cktune}; do
    b=${v%%:*}; x=${v#*:}; exe=.carry/cktune; bits=0
    case $x in =*) bits=${x#=};; *) exe=.carry/$x;; esac
    s=$(date +%s)
    CKTUNE_EXP=$bits timeout ${TUNE_S:-150} $exe tune -i $O/grid.csv --family moe_2stages -o $O/tuned_${b}_$r.csv -o2 $O/profile_${b}_$r.csv \
      --device gpu --no-progress --retime-tolerance ${TOL:-0.1} --kernels "${KRE:-s1wg_.*[+]cktune_moe_s2wg_.*acc}" \
      > $O/tune_${b}_$r.txt 2> $O/tune_${b}_$r.err
    echo "tune $b (CKTUNE_EXP=$bits $exe) round $r rc=$? $(( $(date +%s) - s )) s"
  done
done
python3 docs/perf/data/moe_2026-11-29_s30/ab.py $O
(cd /tmp && tar czf "$OUT/s30.tgz" s30)
