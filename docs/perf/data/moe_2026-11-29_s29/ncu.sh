#!/usr/bin/env bash
# Session 29: Nsight Compute on the wgmma stage kernels of one DeepSeek-V3 TP8 pipeline at 64 tokens, the plain
# stage 2 against the one that follows blocks (`_fl`): `bench --config` runs the tuned row (its stages are the only
# wgmma kernels in the run; the default pipeline is on the warp MMA). On the GPU machine with .carryz carried.
set -u
bash scripts/unpack_carry.sh > /dev/null
d=docs/perf/data/moe_2026-11-29_s29
g=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
{ head -1 $g; grep "^64," $g; } > /tmp/g64.csv
for v in ${VARIANTS:-plain fl}; do
  [ "$v" = fl ] || [ "$v" = plain ] || { CKTUNE_FL_EXP=${v#fl}; export CKTUNE_FL_EXP; }
  timeout -s KILL 150 ncu --clock-control none --kernel-name regex:"wg_stage_kernel|quantize_a" --launch-skip 30 --launch-count 6 \
    --section SpeedOfLight --section WarpStateStats \
    .carry/cktune bench -i /tmp/g64.csv --family moe_2stages --device gpu --config $d/ncu_${v%%[0-9]*}.csv --against default \
    -o /tmp/b_$v.csv > "$OUT/ncu_$v.txt" 2>&1
  echo "$v rc=$?"
  grep -E "^  [a-z].*(wg_stage_kernel|quantize)|Duration|Memory Throughput" "$OUT/ncu_$v.txt" | paste - - - | sed "s/(CUtensorMap_st, Args, int, int)//; s/Context 1, Stream 13, Device 0, CC 9.0//" | tr -s " " | cut -c1-200
done
