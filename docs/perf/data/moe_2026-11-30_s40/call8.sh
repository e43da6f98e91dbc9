#!/usr/bin/env bash
# Session 40, call 8 (NEXT.md item 1): do the tune's parts come close to ncu's single-launch durations when only the
# first launches after a pause are timed? The tuned 16384-token DeepSeek-V3 pipeline tuned alone with --warmup 0
# --iters 3 --settle-ms 0 (three times, a 3 s pause before each), then with the defaults, then with --iters 401;
# nvidia-smi every 20 ms beside it. .carryz: cktune.xz (35257ba).
set -u
bash scripts/unpack_carry.sh > /dev/null
O=/tmp/few40; mkdir -p $O
f=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
t=16384
{ head -1 $f; grep "^$t," $f; } > $O/moe_$t.csv
K='cktune_moe_s1wg_bm128_n128_st4[+]cktune_moe_s2wg_bm128_n256_st4_so_acc_g1$'
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active --format=csv,noheader -lms 20 > $O/smi.csv 2>&1 &
smi=$!
run() {  # name, extra options
  sleep 3
  echo "$1 start $(date +%H:%M:%S.%N)" >> $O/marks.txt
  .carry/cktune tune -i $O/moe_$t.csv --family moe_2stages -o $O/t_$1.csv -o2 $O/p_$1.csv --device gpu --no-progress \
    --kernels "$K" $2 > $O/$1.log 2>&1
  echo "$1 rc=$? end $(date +%H:%M:%S.%N)" >> $O/marks.txt
  python3 -c "import csv,sys; [print('$1', r['us'], r['us_p10'], r['us_p90'], r['parts']) for r in csv.DictReader(open('$O/p_$1.csv'))]"
}
run few1 "--warmup 0 --iters 3 --settle-ms 0"
run few2 "--warmup 0 --iters 3 --settle-ms 0"
run few3 "--warmup 0 --iters 3 --settle-ms 0"
run default ""
run long "--iters 401"
kill $smi
tar czf $OUT/few40.tgz -C /tmp few40
