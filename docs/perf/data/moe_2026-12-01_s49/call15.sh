#!/usr/bin/env bash
# Session 49, call 15 (issue #11, the stop's question): the final binary of session 49 (9d4c220; its MoE kernels those of 9572fea) on this session's
# machine; DeepSeek-V3 TP8 at 7 token counts its grid does not hold and no tune has held (12, 20, 40, 80, 200, 640,
# 1200; never_tuned_dsv3_tp8_s49.csv): a tune of exactly those, `merge --check`, then `bench --config` of that table
# against the default. Does the bench reproduce each shape's winner time from the tune's
# profile (report --profile), with the timed launches' outputs checked (every bench row's verdict)?
set -u
O=/tmp/s49m; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
g=docs/perf/data/moe_2026-12-01_s49/never_tuned_dsv3_tp8_s49.csv
s=$(date +%s)
timeout -s KILL 200 .carry/cktune tune -i $g --family moe_2stages -o $O/nt_tuned.csv -o2 $O/nt_profile.csv --device gpu \
  --no-progress > $O/nt_tune.txt 2> $O/nt_tune.err
echo "tune rc=$? $(( $(date +%s) - s )) s"; tail -2 $O/nt_tune.err
.carry/cktune merge --check $O/nt_tuned.csv 2>&1 | tail -1
s=$(date +%s)
timeout -s KILL 90 .carry/cktune bench -i $g --family moe_2stages --config $O/nt_tuned.csv --against default --device gpu \
  -o $O/nt_after.csv > $O/nt_bench.txt 2> $O/nt_bench.err
echo "bench rc=$? $(( $(date +%s) - s )) s"
awk -F, 'NR==1{for(i=1;i<=NF;i++){if($i=="verdict")v=i; if($i=="role")r=i}} NR>1{c[$r" "$v]++} END{for(k in c) print "bench rows:", k, c[k]}' $O/nt_after.csv
.carry/cktune report --after $O/nt_after.csv --tuned $O/nt_tuned.csv --profile $O/nt_profile.csv -o $O/nt_report.md > /dev/null 2>&1
awk '/^## /{f = ($0 == "## Tune and bench agree"); next} f && NF' $O/nt_report.md | head -20
grep -iE "geomean|^  all" $O/nt_bench.txt | head -4
rm -rf $O/*.cktune
(cd /tmp && tar czf "$OUT/s49m.tgz" s49m)
