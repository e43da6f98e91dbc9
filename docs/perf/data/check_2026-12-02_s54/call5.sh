#!/usr/bin/env bash
# Session 54, call 5 (issue #13): the kept commit's portable binaries (the last M tile's x box with only the rows it
# holds). (1) scripts/gpu_grid.sh 1: every GPU test (each block-scale and per-token instance on ragged shapes), the
# 48-shape grid's bench / tune / bench / compare. (2) The 40-shape ragged set: tune, bench --against default,
# agreement (scripts/gpu_agreement.sh ragged without its prelude). (3) Session 51's eight GEMM shapes no tune has held:
# two shards, merged, merge --check, bench --config against the default, report --tuned. (4) 1 x 32768 x 512 tuned
# and benched alone twice: the near ties' interleaved rounds now go on with the rotation (calls 1-2: their rounds
# started on the sets the previous round left in the L2, and tune wrote 8.67-8.78 us where bench measured 9.2-9.4).
# (0) First, gemm_dev ABAB of the same cut for the last N tile's weight box (wt: xt + call5_w_tail_map.diff) against
# xt, on shapes whose N leaves a partial last tile (N = 2112 with 128-wide tiles, 7000, 1000) and a full-tile control.
set -u
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid --format=csv,noheader
D0=/tmp/c5w; mkdir -p $D0
for b in xt wt; do xz -dc .carryz/dev/gemm_dev_$b.xz > $D0/gemm_dev_$b; chmod +x $D0/gemm_dev_$b; done
ws="16,2112,7168;64,2112,7168;128,2112,7168;512,2112,7168;4096,2112,7168;2500,2112,7168;1000,7000,2048;200,1000,7168;4096,7168,2048"
for r in 1 2; do for b in xt wt; do
  timeout -s KILL 60 $D0/gemm_dev_$b --iters 40 --filter wgmma --shapes "$ws" > $D0/$b.$r.log 2>&1
  echo "$b.$r rc=$? wrong: $(grep "wrong results" $D0/$b.$r.log | sed 's/.*wrong results: //')"
done; done
python3 docs/perf/data/gemm_2026-12-01_s50/abab.py $D0/xt.1.log,$D0/xt.2.log $D0/wt.1.log,$D0/wt.2.log
rm -f $D0/gemm_dev_*; tar czf $OUT/c5w.tgz -C /tmp c5w
OUT0=$OUT
mkdir -p $OUT0/grid $OUT0/ragged
OUT=$OUT0/grid bash scripts/gpu_grid.sh 1 > /dev/null 2>&1; echo "grid rc=$?"
grep -A3 "=== tune\|tune --mp" $OUT0/grid/summary.txt | head -8; grep -iE "geomean|vs baseline|PASSED|FAILED" $OUT0/grid/summary.txt | head -12
OUT=$OUT0/ragged SKIP_PRELUDE=1 bash scripts/gpu_agreement.sh ragged > /dev/null 2>&1; echo "ragged rc=$?"
grep -vE "^===|^$" $OUT0/ragged/summary.txt | head -30
O=/tmp/s54c5; mkdir -p $O; B=.carry/cktune; g=docs/perf/data/check_2026-12-01_s51/never_tuned_gemm_s51.csv
for i in 1 2; do
  $B tune -i $g --shard $i/2 -o $O/shard_$i.csv -o2 $O/shard_${i}_profile.csv --device gpu --no-progress > /dev/null 2> $O/tune_$i.err
  echo "never-tuned shard $i/2 rc=$?"
done
$B merge $O/shard_1.csv $O/shard_2.csv -o $O/merged.csv > $O/merge.txt 2>&1; echo "merge rc=$?"
$B merge --check $O/merged.csv 2>&1 | tail -1
$B bench -i $g --config $O/merged.csv --against default --device gpu -o $O/after.csv > $O/bench.txt 2> $O/bench.err
echo "bench rc=$?"
awk -F, 'NR==1{for(i=1;i<=NF;i++){if($i=="verdict")v=i; if($i=="role")r=i}} NR>1{c[$r" "$v]++} END{for(k in c) print "bench rows:", k, c[k]}' $O/after.csv
$B report --after $O/after.csv --tuned $O/merged.csv -o $O/report.md > /dev/null 2>&1; echo "report rc=$?"
awk '/^## /{f = ($0 == "## Tune and bench agree"); next} f && NF' $O/report.md | head -6
printf 'M,N,K\n1,32768,512\n' > $O/one.csv
for t in 1 2; do
  $B tune -i $O/one.csv -o $O/one_$t.csv -o2 $O/one_${t}_profile.csv --device gpu --no-progress > /dev/null 2> $O/one_$t.err
  $B bench -i $O/one.csv --config $O/one_$t.csv --device gpu -o $O/one_${t}_bench.csv > /dev/null 2> $O/one_${t}_bench.err
  awk -F, -v t=$t 'NR==1{for(i=1;i<=NF;i++){h[$i]=i}} NR>1 && $h["verdict"]=="passed"{print "one " t " tune", $h["us"], $h["us_p10"], $h["us_p90"], $h["kernelName"]}' $O/one_${t}_profile.csv | sort -k4n | head -3
  awk -F, -v t=$t 'NR==1{for(i=1;i<=NF;i++){h[$i]=i}} NR>1{print "one " t " bench", $h["role"], $h["us"], $h["us_p10"], $h["us_p90"], $h["kernelName"]}' $O/one_${t}_bench.csv
done
rm -rf $O/*.cktune; (cd /tmp && tar czf "$OUT0/s54c5.tgz" s54c5)
