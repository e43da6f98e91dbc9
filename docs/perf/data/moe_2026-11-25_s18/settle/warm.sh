#!/usr/bin/env bash
# Does a longer warm-up put the timing of the large MoE pipelines in one clock regime? Qwen3.5 8192 and
# 16384 tokens, the tuned pipeline, bench with 5 and with 60 warm-up launches, alternating, 3 times each;
# the power limit and clock state first.
set -u
bash scripts/unpack_carry.sh >/dev/null
xz -dc gpu-in/dump.xz > /tmp/ck; chmod +x /tmp/ck
nvidia-smi -q -d POWER | grep -iE "limit|draw" | head -12
f=configs/grids/moe_2stages_untuned_fmoe_qwen35_397b.csv
{ head -1 $f; grep -E "^(8192|16384)," $f; } > /tmp/u.csv
tuned=docs/perf/data/moe_2026-11-25_s18/grids/tuned_fmoe_qwen35_397b_uniform.csv
for rep in 1 2 3; do
  for w in 5 60; do
    timeout 150 /tmp/ck bench -i /tmp/u.csv --family moe_2stages --device gpu --config $tuned --warmup $w -o /tmp/b_${rep}_$w.csv > /tmp/bl.txt 2>&1
    python3 -c "
import csv
for r in csv.DictReader(open('/tmp/b_${rep}_$w.csv')):
  if r['role']=='dispatch': print('rep $rep warmup $w', r['token'], r['us'], r['us_p10'], r['us_p90'])
"
  done
done
