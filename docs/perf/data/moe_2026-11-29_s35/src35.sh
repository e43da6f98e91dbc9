#!/usr/bin/env bash
# Session 35, call 3: what holds the block_m 128 MoE stage 1 at 4096 DeepSeek-V3 tokens (430 us in session 31 with about
# half the weight reads of block_m 64's 256-wide tiles, 361 us)? ncu (clocks not locked) of one stage-1 launch each of
# `s1wg_bm128_n128_st4` and `s1wg_bm64_n256_st4`, with the source counters (warp-state samples per SASS instruction),
# exported per instruction as CSV. On the GPU machine with .carryz carried.
set -u
O=/tmp/src35; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
NCU=/usr/local/cuda/bin/ncu
SEC="--section SpeedOfLight --section WarpStateStats --section SourceCounters --section SchedulerStats --section LaunchStats --section Occupancy"
f=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
{ head -1 $f; grep "^${TOK:-4096}," $f; } > $O/moe.csv
for p in 's1wg_bm128_n128_st4[+]cktune_moe_s2wg_bm128_n128_st4_so_acc_g4' 's1wg_bm64_n256_st4[+]cktune_moe_s2wg_bm64_n256_st4_so_acc_g1'; do
  n=${p%%\[*}
  timeout 200 $NCU --clock-control none -k regex:wg_stage_kernel -c 1 $SEC --import-source no -o $O/$n \
    .carry/cktune tune -i $O/moe.csv --family moe_2stages -o $O/t_$n.csv --device gpu --no-progress \
    --kernels "cktune_moe_$p" > $O/ncu_$n.txt 2>&1
  echo "ncu $n rc=$?"
  $NCU --import $O/$n.ncu-rep --page details > $O/${n}_details.txt 2>&1
  $NCU --import $O/$n.ncu-rep --page source --csv --print-source sass > $O/${n}_sass.csv 2> $O/${n}_sass.err
  echo "sass export rc=$? $(wc -l < $O/${n}_sass.csv) lines"
  head -c 600 $O/${n}_sass.csv; echo
  grep -E "Duration|Warp Cycles Per Issued|Issued Warp|No Eligible|Active Warps Per|Eligible Warps" $O/${n}_details.txt | head -8
done
tar czf $OUT/src35.tgz -C /tmp src35
