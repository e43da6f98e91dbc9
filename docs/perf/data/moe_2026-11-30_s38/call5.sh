#!/usr/bin/env bash
# Session 38, call 5: why the weight-scale header (call 4, withdrawn) was slower. ncu source counters of one stage-2
# launch of the tuned DeepSeek-V3 TP8 pipeline at 16384 tokens (as call 3), the kept build (cktune) and the header
# build (cktune_hd) on the same machine, one after the other. .carryz: cktune.xz, cktune_hd.xz.
set -u
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.limit,temperature.gpu --format=csv,noheader
O=/tmp/src38b; mkdir -p $O
NCU=/usr/local/cuda/bin/ncu
SEC="--section SpeedOfLight --section WarpStateStats --section SourceCounters --section SchedulerStats --section LaunchStats"
f=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
t=16384
{ head -1 $f; grep "^$t," $f; } > $O/moe_$t.csv
for b in cktune cktune_hd; do
  n=s2_${t}_$b
  timeout 150 $NCU --clock-control none -k regex:wg_stage_kernel --launch-skip 1 -c 1 $SEC --import-source no -o $O/$n \
    .carry/$b tune -i $O/moe_$t.csv --family moe_2stages -o $O/t_$n.csv --device gpu --no-progress \
    --kernels 'cktune_moe_s1wg_bm128_n128_st4[+]cktune_moe_s2wg_bm128_n256_st4_so_acc_g1$' > $O/ncu_$n.txt 2>&1
  echo "ncu $n rc=$?"
  $NCU --import $O/$n.ncu-rep --page details > $O/${n}_details.txt 2>&1
  $NCU --import $O/$n.ncu-rep --page source --csv --print-source sass > $O/${n}_sass.csv 2> $O/${n}_sass.err
  grep -E "Duration|Issued Warp|No Eligible" $O/${n}_details.txt | cut -c1-120 | head -4
  python3 docs/perf/data/moe_2026-11-29_s35/sass_an.py $O/${n}_sass.csv > $O/${n}_stalls.txt
  sed -n 2,14p $O/${n}_stalls.txt | cut -c1-150
  gzip -f $O/${n}_sass.csv
done
rm -f $O/*.ncu-rep
tar czf $OUT/src38b.tgz -C /tmp src38b
