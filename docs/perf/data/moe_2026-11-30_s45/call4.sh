#!/usr/bin/env bash
# Session 45, call 4 (issue #11, 8-64 tokens): EXPERIMENT. The routing `_q` stage 1 with its tiles' k-slices claimed at
# run time (`cktune_moe_s1wg_bm64_n256_st4_q_r_b`), built by scripts/build_portable.sh from ff73fe2 + the change. The
# MoE GPU tests, then the DeepSeek-V3 TP8 tune at 8-64 tokens twice: the best `_b` pipeline against the best other one
# in the same tune.
set -u
O=/tmp/s45m; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
s=$(date +%s)
timeout -s KILL 200 .carry/cktune_gpu_tests --gtest_filter='GpuMoe.*' > $O/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(( $(date +%s) - s )) s"; grep -E "^\[  (PASSED|FAILED) |FAILED|comparisons" $O/gpu_tests.log | head -20
grep -E "_b " $O/gpu_tests.log | head -12
g=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
{ head -1 $g; for t in ${TOKENS:-8 16 32 64}; do grep "^$t," $g; done; } > $O/grid.csv
for r in 1 2; do
  s=$(date +%s)
  timeout -s KILL 150 .carry/cktune tune -i $O/grid.csv --family moe_2stages -o $O/tuned_$r.csv -o2 $O/profile_$r.csv \
    --device gpu --no-progress > $O/tune_$r.txt 2> $O/tune_$r.err
  echo "tune round $r rc=$? $(( $(date +%s) - s )) s"; tail -2 $O/tune_$r.err
done
python3 docs/perf/data/moe_2026-11-30_s45/cmp45.py $O/profile_1.csv $O/profile_2.csv | tee $O/cmp.txt
cut -d, -f4,16-22 $O/tuned_2.csv
(cd /tmp && tar czf "$OUT/s45m.tgz" s45m)
