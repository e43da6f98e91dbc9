#!/usr/bin/env bash
# Session 46, call 9: bench --config's note for a table tuned on another board of the same model (b0a53c6). Call 3's
# seed-0 table and its provenance (tuned on GPU-f15a61ee) benched at 8 tokens on whatever board this call gets.
set -u
O=/tmp/s46c9; mkdir -p $O
scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
D=docs/perf/data/moe_2026-11-30_s46
awk -F, 'NR == 1 || $1 == 8' configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv > $O/grid.csv
.carry/cktune bench -i $O/grid.csv --family moe_2stages --device gpu --config $D/call3/T0.csv --seed 0 -o $O/b.csv \
  > /dev/null 2> $O/b.err
echo "bench rc=$?"; grep -E "tuned on|board|rows are for" $O/b.err
awk -F, 'NR > 1 {print $4, $16, $21, $23, $30}' $O/b.csv
