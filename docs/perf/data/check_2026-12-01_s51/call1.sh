#!/usr/bin/env bash
# Session 51, call 1 (issues #11 and #13, the stop's questions; the merge's provenance sidecar of this session on a
# GPU): HEAD's binaries (scripts/build_portable.sh at 1e7331d: the block-scale grid kernel's scales staged with their k-block). (1) The block-scale,
# per-token and fused-MoE GPU tests (every instance against the reference on ragged shapes). (2) Eight GEMM shapes and
# seven DeepSeek-V3 TP8 token counts no tune has held, each file tuned as two shards (`--shard 1/2`, `2/2`, each with
# its own -o and -o2), the shards merged without --family, `merge --check` of the merged table (read through its own
# sidecar), `bench --config` of the merged table against the default (every row's verdict includes the timed
# launches' outputs), and `report --tuned` of the merged table without --profile: tune's times come from both
# shards' profiles through the merged table's sidecar.
set -u
O=/tmp/s51c1; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
D=docs/perf/data/check_2026-12-01_s51
s=$(date +%s)
timeout -s KILL 300 .carry/cktune_gpu_tests --gtest_filter='GpuBlockscale.*:*GpuPerToken*:*GpuMoe*' > $O/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(( $(date +%s) - s )) s"; grep -E "^\[  (PASSED|FAILED) |FAILED|instance runs passed|tests ran" $O/gpu_tests.log | head
for fam in gemm moe; do
  if [ $fam = gemm ]; then g=$D/never_tuned_gemm_s51.csv; F=""; else g=$D/never_tuned_dsv3_tp8_s51.csv; F="--family moe_2stages"; fi
  for i in 1 2; do
    s=$(date +%s)
    timeout -s KILL 200 .carry/cktune tune -i $g $F --shard $i/2 -o $O/${fam}_shard_$i.csv -o2 $O/${fam}_shard_${i}_profile.csv \
      --device gpu --no-progress > $O/${fam}_tune_$i.txt 2> $O/${fam}_tune_$i.err
    echo "$fam shard $i/2 tune rc=$? $(( $(date +%s) - s )) s"; tail -1 $O/${fam}_tune_$i.err
  done
  .carry/cktune merge $O/${fam}_shard_1.csv $O/${fam}_shard_2.csv -o $O/${fam}_merged.csv > $O/${fam}_merge.txt 2>&1
  echo "$fam merge rc=$?"; cat $O/${fam}_merge.txt
  .carry/cktune merge --check $O/${fam}_merged.csv 2>&1 | tail -1
  s=$(date +%s)
  timeout -s KILL 150 .carry/cktune bench -i $g $F --config $O/${fam}_merged.csv --against default --device gpu \
    -o $O/${fam}_after.csv > $O/${fam}_bench.txt 2> $O/${fam}_bench.err
  echo "$fam bench rc=$? $(( $(date +%s) - s )) s"
  awk -F, 'NR==1{for(i=1;i<=NF;i++){if($i=="verdict")v=i; if($i=="role")r=i}} NR>1{c[$r" "$v]++} END{for(k in c) print "bench rows:", k, c[k]}' $O/${fam}_after.csv
  .carry/cktune report --after $O/${fam}_after.csv --tuned $O/${fam}_merged.csv -o $O/${fam}_report.md > /dev/null 2>&1
  echo "$fam report rc=$?"
  awk '/^## /{f = ($0 == "## Tune and bench agree"); next} f && NF' $O/${fam}_report.md | head -14
  grep -iE "geomean" $O/${fam}_bench.txt | head -3
done
rm -rf $O/*.cktune
(cd /tmp && tar czf "$OUT/s51c1.tgz" s51c1)
