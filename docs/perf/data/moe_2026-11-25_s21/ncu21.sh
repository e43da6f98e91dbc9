#!/usr/bin/env bash
# Session 21: ncu (clocks not locked) of every kernel of the winning 8/16/512-token DeepSeek-V3 pipelines:
# duration, DRAM bytes and throughput, per kernel, to set against the event-timed pipeline.
set -u
bash scripts/unpack_carry.sh >/dev/null
NCU=/usr/local/cuda/bin/ncu
mkdir -p /tmp/nc
f=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
for t in ${TOKS:-8 16 512}; do
  { head -1 $f; grep "^$t,7168" $f; } > /tmp/nc/u$t.csv
  k=${KRE:-'cktune_moe_s1wg_bm64_n128_st4\+cktune_moe_s2wg_bm64_n128_st4_so_acc_g1'}
  timeout 200 $NCU --clock-control none --target-processes all -k 'regex:sort|stage|quantize|reduce' -c ${NK:-12} \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__cycles_active.avg,launch__grid_size,lts__t_requests_op_red.sum,smsp__cycles_active.avg \
    .carry/cktune tune -i /tmp/nc/u$t.csv -o /tmp/nc/t.csv --device gpu --kernels "$k" --iters 3 --warmup 1 > /tmp/nc/t$t.txt 2>&1
  echo "t=$t rc=$?"
  grep -E "^  [a-zA-Z_].*\(|gpu__time|dram__|launch__grid|lts__t_req" /tmp/nc/t$t.txt | sed 's/(CUtensorMap_st.*//' | head -60
  rm -f /tmp/nc/t.csv*; rm -rf /tmp/nc/t.csv.cktune
done
tar czf $OUT/nc.tgz -C /tmp nc
