#!/usr/bin/env bash
# Session 46, call 5 (issue #11, the boards where 8 tokens take ~93 us instead of ~87.5): the 8-token pipeline of call
# 3's seed-0 table with the launches overlapped (PDL, as always) and serialised (CKTUNE_SERIAL_LAUNCHES=1), taking
# turns three times; and what nvidia-smi says of the board's clocks, power and memory, to set beside a fast board's.
set -u
O=/tmp/s46c5; mkdir -p $O
scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,serial,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.limit,temperature.gpu --format=csv
nvidia-smi -q -d CLOCK,POWER,PERFORMANCE,ECC,MEMORY,ROW_REMAPPER > $O/smi_q.txt 2>&1
grep -E "Applications Clocks|Default Applications|Max Clocks|SM  |Memory  |Power Limit|Remapped|Pending|Clocks Event|Active|Idle" $O/smi_q.txt | head -40
D=docs/perf/data/moe_2026-11-30_s46
awk -F, 'NR == 1 || $1 == 8 || $1 == 16' configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv > $O/grid.csv
for r in 1 2 3; do
  for mode in pdl serial; do
    env=""; [ $mode = serial ] && env="CKTUNE_SERIAL_LAUNCHES=1"
    env $env .carry/cktune bench -i $O/grid.csv --family moe_2stages --device gpu --config $D/call3/T0.csv --seed 0 \
      -o $O/b_${mode}_$r.csv > /dev/null 2> $O/b_${mode}_$r.err
    echo "round $r $mode rc=$?: $(awk -F, 'NR > 1 {printf "%s tokens %s us; ", $4, $23}' $O/b_${mode}_$r.csv)"
  done
done
tar czf $OUT/s46c5.tgz -C /tmp s46c5
