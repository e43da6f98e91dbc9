#!/usr/bin/env bash
# Session 38, call 3 (2x H200): the build kept in call 2 on the Qwen3-235B-A22B TP4 and Qwen3.5-397B-A17B grids,
# tuned on two GPUs (MP=2), as session 37's call 9; then ncu source counters of one stage-2 launch of the tuned
# DeepSeek-V3 TP8 pipeline at 16384 tokens (as session 37's call 4, one shape), to set beside call 4's.
# .carryz: cktune.xz, cktune_gpu_tests.xz.
set -u
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.limit,temperature.gpu --format=csv,noheader
mkdir -p /tmp/moeq
OUT=/tmp/moeq MP=2 SKIP_TESTS=1 TUNE_TIMEOUT=200 BENCH_TIMEOUT=100 bash scripts/gpu_moe.sh qwen3_235b_tp4 qwen35_397b \
  > /tmp/moeq/run.log 2>&1
echo "moe rc=$?"
grep -E "tune rc|check:|bench/tune|tuned vs default|^\| [124] \|" /tmp/moeq/moe_summary.txt
(cd /tmp && tar czf "$OUT/moeq.tgz" moeq)
O=/tmp/src38; mkdir -p $O
NCU=/usr/local/cuda/bin/ncu
SEC="--section SpeedOfLight --section WarpStateStats --section SourceCounters --section SchedulerStats --section LaunchStats"
f=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
t=16384; n=s2_$t
{ head -1 $f; grep "^$t," $f; } > $O/moe_$t.csv
timeout 200 $NCU --clock-control none -k regex:wg_stage_kernel --launch-skip 1 -c 1 $SEC --import-source no -o $O/$n \
  .carry/cktune tune -i $O/moe_$t.csv --family moe_2stages -o $O/t_$n.csv --device gpu --no-progress \
  --kernels 'cktune_moe_s1wg_bm128_n128_st4[+]cktune_moe_s2wg_bm128_n256_st4_so_acc_g1$' > $O/ncu_$n.txt 2>&1
echo "ncu $n rc=$?"
$NCU --import $O/$n.ncu-rep --page details > $O/${n}_details.txt 2>&1
$NCU --import $O/$n.ncu-rep --page source --csv --print-source sass > $O/${n}_sass.csv 2> $O/${n}_sass.err
grep -E "Duration|Warp Cycles Per Issued|Issued Warp|No Eligible|Executed Ipc" $O/${n}_details.txt | cut -c1-150 | head -8
python3 docs/perf/data/moe_2026-11-29_s35/sass_an.py $O/${n}_sass.csv > $O/${n}_stalls.txt
head -3 $O/${n}_stalls.txt | cut -c1-170
gzip -f $O/${n}_sass.csv
rm -f $O/*.ncu-rep
tar czf $OUT/src38.tgz -C /tmp src38
