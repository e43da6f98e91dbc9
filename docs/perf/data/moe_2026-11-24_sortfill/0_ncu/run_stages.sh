#!/usr/bin/env bash
# session 15, call 1: verify 4bb7de1 (GPU tests minus sorting), MoE agreement at 3 token counts, ncu of the decode stages
set -u
bash scripts/unpack_carry.sh >/dev/null
B=.carry/cktune
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv
echo "=== gpu tests $(date +%T)"
timeout 200 .carry/cktune_gpu_tests --gtest_brief=1 --gtest_filter='-GpuMoeSorting.*' 2>&1 | tail -8
echo "=== moe bench with the tuned table $(date +%T)"
$B bench -i gpu-in/moe_3.csv --family moe_2stages --device gpu --config gpu-in/tuned_dsv3.csv --against default -o $OUT/bench3.csv > $OUT/bench3.txt 2>&1; echo rc=$?
tail -12 $OUT/bench3.txt
NCU=/usr/local/cuda/bin/ncu
for t in 16 256; do
  awk -F, -v t=$t 'NR==1 || $1==t' gpu-in/moe_3.csv > /tmp/m$t.csv
  echo "=== ncu $t tokens $(date +%T)"
  timeout 150 $NCU --target-processes all --clock-control none -k regex:"wg_stage|sort" --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section LaunchStats --section Occupancy \
    $B tune -i /tmp/m$t.csv --family moe_2stages --device gpu --kernels 's1wg_bm64_n128_st4\+cktune_moe_s2wg_bm64_n128_st4_acc_g1' --iters 3 --warmup 1 -o /tmp/x$t.csv > $OUT/ncu_$t.txt 2>&1
  echo rc=$?
  grep -E "wg_stage_kernel|sort.*kernel|Duration|DRAM Throughput|Memory Throughput  .*byte|Registers Per|Achieved Occupancy|Issue Slots Busy|No Eligible" $OUT/ncu_$t.txt | head -60
done
echo "=== done $(date +%T)"
