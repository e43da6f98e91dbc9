#!/usr/bin/env bash
# Per-sample times of the tuned Qwen3.5 8192-token and DeepSeek-V3 4096-token pipelines (scratch build with
# CKTUNE_DUMP_SAMPLES), with the SM clock and power sampled alongside.
set -u
bash scripts/unpack_carry.sh >/dev/null
xz -dc gpu-in/dump.xz > /tmp/ck; chmod +x /tmp/ck
D=docs/perf/data
for spec in "qwen35_397b;8192;$D/moe_2026-11-25_s18/grids/tuned_fmoe_qwen35_397b_uniform.csv" ; do
  IFS=';' read model t tuned <<< "$spec"
  f=configs/grids/moe_2stages_untuned_fmoe_$model.csv
  { head -1 $f; grep "^$t," $f; } > /tmp/u_$model.csv
  for rep in 1 2 3; do
    nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 20 > $OUT/clk_${model}_$rep.txt &
    sp=$!
    CKTUNE_DUMP_SAMPLES=1 timeout 120 /tmp/ck bench -i /tmp/u_$model.csv --family moe_2stages --device gpu --config $tuned -o /tmp/b_$rep.csv > /tmp/bl_$rep.txt 2>&1
    echo "$model rep $rep rc=$?"
    kill $sp
    grep SAMPLES /tmp/bl_$rep.txt | cut -c1-1200
  done
done
