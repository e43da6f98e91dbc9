#!/usr/bin/env bash
# Session 28: the parts (sorting, stage 1, stage 2) of every pipeline near the best, from a DeepSeek-V3 TP8 tune cut to
# $TOKENS with a wide re-timing tolerance (the tune times the parts of the pipelines within it). On the GPU machine with
# .carryz carried; writes $OUT/profile.csv and prints parts.py's table.
set -u
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
g=configs/grids/moe_2stages_untuned_fmoe_${MODEL:-dsv3_tp8}.csv
{ head -1 $g; for t in ${TOKENS:-8 16}; do grep "^$t," $g; done; } > /tmp/grid.csv
s=$(date +%s)
timeout ${TUNE_S:-300} .carry/cktune tune -i /tmp/grid.csv --family moe_2stages -o $OUT/tuned.csv -o2 $OUT/profile.csv \
  --device gpu --no-progress --retime-tolerance ${TOL:-0.35} > $OUT/tune.txt 2> $OUT/tune.err
echo "tune rc=$? $(( $(date +%s) - s )) s"
python3 docs/perf/data/moe_2026-11-29_s28/parts.py $OUT/profile.csv ${TOP:-14}
