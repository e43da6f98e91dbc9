#!/usr/bin/env bash
# Session 17 (2026-11-25), calls 4 and 5 of CALLS.md: ncu (speed of light, warp states, scheduler, SASS
# source counters) of the first stage-2 launch of one pipeline per DeepSeek-V3 TP8 token count.
# Usage (repository root, GPU machine): SPECS="4096 <pipeline regex>;16384 <pipeline regex>" ncu.sh
set -u
bash scripts/unpack_carry.sh >/dev/null
NCU=/usr/local/cuda/bin/ncu
mkdir -p /tmp/nc; rm -rf /tmp/nc/*
f=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
SPECS=${SPECS:-"4096 cktune_moe_s1wg_bm64_n128_st4[+]cktune_moe_s2wg_bm64_n128_st4_so_acc_g1;16384 cktune_moe_s1wg_bm128_n128_st4[+]cktune_moe_s2wg_bm128_n128_st4_so_acc_g4"}
echo "$SPECS" | tr ";" "\n" > /tmp/nc_specs
while read t k; do
  { head -1 $f; grep "^$t,7168" $f; } > /tmp/nc/u$t.csv
  timeout 280 $NCU --target-processes all -k regex:wg_stage_kernel --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section SourceCounters --section MemoryWorkloadAnalysis \
    --import-source no -o /tmp/nc/r$t \
    .carry/cktune tune -i /tmp/nc/u$t.csv -o /tmp/nc/t$t.csv --device gpu --kernels "$k" --iters 3 --warmup 1 > /tmp/nc/log$t.txt 2>&1
  echo "t=$t rc=$?"
  $NCU -i /tmp/nc/r$t.ncu-rep > /tmp/nc/details$t.txt 2>&1
  $NCU -i /tmp/nc/r$t.ncu-rep --page source --csv --print-source sass > /tmp/nc/sass$t.csv 2>/dev/null
  grep -E "wg_stage_kernel|Duration|Throughput|Issued Warp|Eligible|Stall|Warp Cycles" /tmp/nc/details$t.txt | head -30
done < /tmp/nc_specs
gzip /tmp/nc/sass*.csv
tar czf $OUT/nc.tgz -C /tmp nc
