#!/usr/bin/env bash
# Session 40, call 4: what holds the prefill stage 1 at 16384 DeepSeek-V3 tokens, where it is now 1.32 of the
# pipeline's 2.37 ms (call 2): ncu speed-of-light, memory and per-SASS stall samples of one stage-1 launch of the tuned
# pipeline (s1wg_bm128_n128_st4 + s2wg_bm128_n256) and of the 256-row block_m 64 stage 1 (s1wg_bm64_n256_st4), the
# second pipeline run's launch (L2 warm as in a tune). .carryz: cktune.xz (35257ba).
set -u
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.limit,temperature.gpu --format=csv,noheader
O=/tmp/s1n40; mkdir -p $O
NCU=/usr/local/cuda/bin/ncu
SEC="--section SpeedOfLight --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section WarpStateStats --section SourceCounters --section SchedulerStats --section LaunchStats --section Occupancy"
f=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
t=16384
{ head -1 $f; grep "^$t," $f; } > $O/moe_$t.csv
for k in 'bm128_n128_st4+cktune_moe_s2wg_bm128_n256_st4_so_acc_g1' 'bm64_n256_st4+cktune_moe_s2wg_bm64_n256_st4_so_acc_g1'; do
  n=s1_${t}_${k%%+*}
  timeout 150 $NCU --clock-control none -k regex:wg_stage_kernel --launch-skip 2 -c 1 $SEC --import-source no -o $O/$n \
    .carry/cktune tune -i $O/moe_$t.csv --family moe_2stages -o $O/t_$n.csv --device gpu --no-progress \
    --kernels "cktune_moe_s1wg_${k/+/[+]}\$" > $O/ncu_$n.txt 2>&1
  echo "ncu $n rc=$?"
  $NCU --import $O/$n.ncu-rep --page details > $O/${n}_details.txt 2>&1
  $NCU --import $O/$n.ncu-rep --page source --csv --print-source sass > $O/${n}_sass.csv 2> $O/${n}_sass.err
  grep -E "Function Name|Duration|Issued Warp|No Eligible|Memory Throughput|L2 Hit|L1/TEX Hit|DRAM Throughput|Compute \(SM\)|Registers Per|Achieved Occ" $O/${n}_details.txt | cut -c1-120 | head -16
  python3 docs/perf/data/moe_2026-11-29_s35/sass_an.py $O/${n}_sass.csv > $O/${n}_stalls.txt
  sed -n 2,22p $O/${n}_stalls.txt | cut -c1-150
  gzip -f $O/${n}_sass.csv
done
rm -f $O/*.ncu-rep
tar czf $OUT/s1n40.tgz -C /tmp s1n40
