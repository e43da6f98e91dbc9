#!/usr/bin/env bash
# Session 37, call 4: where the prefill stage 2's warps wait. ncu (clocks not locked) of one stage-2 launch (the
# second wg_stage_kernel of the tune's first pipeline run) of the tuned DeepSeek-V3 TP8 pipelines at 16384 and 4096
# tokens, with the source counters (warp-state samples per SASS instruction) exported per instruction and summed by
# ../moe_2026-11-29_s35/sass_an.py. On the GPU machine with .carryz carried.
set -u
O=/tmp/src37; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
NCU=/usr/local/cuda/bin/ncu
SEC="--section SpeedOfLight --section WarpStateStats --section SourceCounters --section SchedulerStats --section ComputeWorkloadAnalysis --section LaunchStats --section Occupancy"
f=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
for tp in '16384:cktune_moe_s1wg_bm128_n128_st4[+]cktune_moe_s2wg_bm128_n256_st4_so_acc_g1$' \
          '4096:cktune_moe_s1wg_bm64_n256_st4[+]cktune_moe_s2wg_bm64_n256_st4_so_acc_g1$'; do
  t=${tp%%:*}; p=${tp#*:}; n=s2_$t
  { head -1 $f; grep "^$t," $f; } > $O/moe_$t.csv
  timeout 200 $NCU --clock-control none -k regex:wg_stage_kernel --launch-skip 1 -c 1 $SEC --import-source no -o $O/$n \
    .carry/cktune tune -i $O/moe_$t.csv --family moe_2stages -o $O/t_$n.csv --device gpu --no-progress \
    --kernels "$p" > $O/ncu_$n.txt 2>&1
  echo "ncu $n rc=$?"
  $NCU --import $O/$n.ncu-rep --page details > $O/${n}_details.txt 2>&1
  $NCU --import $O/$n.ncu-rep --page source --csv --print-source sass > $O/${n}_sass.csv 2> $O/${n}_sass.err
  grep -E "wg_stage_kernel|Duration|Warp Cycles Per Issued|Issued Warp|No Eligible|Active Warps Per|Eligible Warps|Executed Ipc" $O/${n}_details.txt | cut -c1-150 | head -12
  python3 docs/perf/data/moe_2026-11-29_s35/sass_an.py $O/${n}_sass.csv > $O/${n}_stalls.txt
  head -45 $O/${n}_stalls.txt | cut -c1-170
  gzip -f $O/${n}_sass.csv
done
rm -f $O/*.ncu-rep
tar czf $OUT/src37.tgz -C /tmp src37
