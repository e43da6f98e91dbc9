#!/usr/bin/env bash
# Session 46, call 12: the results files' uuid column (cbe5787) on an H200: a bench at 8 tokens, its rows' board, and
# compare of that file against call 9's file from another board (the warning for different boards of one model).
set -u
O=/tmp/s46c12; mkdir -p $O
scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
D=docs/perf/data/moe_2026-11-30_s46
awk -F, 'NR == 1 || $1 == 8' configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv > $O/grid.csv
.carry/cktune bench -i $O/grid.csv --family moe_2stages --device gpu --config $D/call3/T0.csv --seed 0 -o $O/b.csv \
  > /dev/null 2> $O/b.err
echo "bench rc=$?"
awk -F, 'NR == 1 {for (i = 1; i <= NF; ++i) c[$i] = i; next} {print $c["role"], $c["kernelName"], $c["us"], $c["uuid"]}' $O/b.csv
# Another board's file: the same rows with call 9's board in the uuid cell.
awk -F, 'BEGIN { OFS = "," } NR == 1 { for (i = 1; i <= NF; ++i) if ($i == "uuid") u = i; print; next }
  { $u = "GPU-e431e130-a09e-3fb9-062f-3eaa813e3c7a"; print }' $O/b.csv > $O/other_board.csv
.carry/cktune compare $O/other_board.csv $O/b.csv 2>&1 | grep -E -i "board|warning" | head -3
