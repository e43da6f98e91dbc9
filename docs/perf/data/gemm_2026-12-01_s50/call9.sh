#!/usr/bin/env bash
# Session 50, call 9 (issues #11 and #13, the stop's questions): HEAD's binaries (scripts/build_portable.sh; the kernels
# of 661128a, unchanged this session). (1) The block-scale, per-token and fused-MoE GPU tests (every instance against
# the reference on ragged shapes). (2) Eight GEMM shapes no tune has held (never_tuned_s50.csv) and seven DeepSeek-V3
# TP8 token counts no tune has held (never_tuned_dsv3_tp8_s50.csv): tune, `merge --check`, `bench --config` of that
# table against the default, and the report's tune-and-bench agreement (every bench row's verdict includes the timed
# launches' outputs).
set -u
O=/tmp/s50c9; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
D=docs/perf/data/gemm_2026-12-01_s50
s=$(date +%s)
timeout -s KILL 300 .carry/cktune_gpu_tests --gtest_filter='GpuBlockscale.*:*GpuPerToken*:*GpuMoe*' > $O/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(( $(date +%s) - s )) s"; grep -E "^\[  (PASSED|FAILED) |FAILED|instance runs passed|tests ran" $O/gpu_tests.log | head
for fam in gemm moe; do
  if [ $fam = gemm ]; then g=$D/never_tuned_s50.csv; F=""; else g=$D/never_tuned_dsv3_tp8_s50.csv; F="--family moe_2stages"; fi
  s=$(date +%s)
  timeout -s KILL 200 .carry/cktune tune -i $g $F -o $O/${fam}_tuned.csv -o2 $O/${fam}_profile.csv --device gpu --no-progress \
    > $O/${fam}_tune.txt 2> $O/${fam}_tune.err
  echo "$fam tune rc=$? $(( $(date +%s) - s )) s"; tail -1 $O/${fam}_tune.err
  .carry/cktune merge --check $O/${fam}_tuned.csv 2>&1 | tail -1
  s=$(date +%s)
  timeout -s KILL 120 .carry/cktune bench -i $g $F --config $O/${fam}_tuned.csv --against default --device gpu \
    -o $O/${fam}_after.csv > $O/${fam}_bench.txt 2> $O/${fam}_bench.err
  echo "$fam bench rc=$? $(( $(date +%s) - s )) s"
  awk -F, 'NR==1{for(i=1;i<=NF;i++){if($i=="verdict")v=i; if($i=="role")r=i}} NR>1{c[$r" "$v]++} END{for(k in c) print "bench rows:", k, c[k]}' $O/${fam}_after.csv
  .carry/cktune report --after $O/${fam}_after.csv --tuned $O/${fam}_tuned.csv --profile $O/${fam}_profile.csv \
    -o $O/${fam}_report.md > /dev/null 2>&1
  awk '/^## /{f = ($0 == "## Tune and bench agree"); next} f && NF' $O/${fam}_report.md | head -14
  grep -iE "geomean" $O/${fam}_bench.txt | head -3
done
rm -rf $O/*.cktune
(cd /tmp && tar czf "$OUT/s50c9.tgz" s50c9)
