#!/usr/bin/env bash
# Session 40, call 5: why the tune times stage 1 and stage 2 at 16384 DeepSeek-V3 tokens ~17-20% slower than ncu's
# single launch (call 4: stage 1 1.09 ms against the tune's 1.32 ms with its re-quantisation; session 39-40: stage 2
# 872-908 us against 1015-1030). The tune of the tuned pipeline alone, twice (the second with --settle-ms 0), with the
# SM clock, power and clock-event reasons sampled every 20 ms; then ncu of stage 1 with its default cache flush and
# with none. .carryz: cktune.xz (35257ba).
set -u
bash scripts/unpack_carry.sh > /dev/null
O=/tmp/clk40; mkdir -p $O
f=configs/grids/moe_2stages_untuned_fmoe_dsv3_tp8.csv
t=16384
{ head -1 $f; grep "^$t," $f; } > $O/moe_$t.csv
K='cktune_moe_s1wg_bm128_n128_st4[+]cktune_moe_s2wg_bm128_n256_st4_so_acc_g1$'
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv,noheader -lms 20 > $O/smi.csv 2>&1 &
smi=$!
sleep 1
for r in 1 2; do
  extra=""; [ $r = 2 ] && extra="--settle-ms 0"
  echo "tune $r start $(date +%H:%M:%S.%N)" >> $O/marks.txt
  .carry/cktune tune -i $O/moe_$t.csv --family moe_2stages -o $O/t$r.csv --device gpu --no-progress --kernels "$K" \
    -o2 $O/p$r.csv $extra > $O/tune$r.log 2>&1
  echo "tune $r rc=$? end $(date +%H:%M:%S.%N)" >> $O/marks.txt
  sleep 1
done
kill $smi
cat $O/marks.txt
python3 - "$O" <<'PY'
import csv, sys, statistics as st
O = sys.argv[1]
rows = [r for r in csv.reader(open(f"{O}/smi.csv")) if len(r) >= 6]
def num(x):
    try: return float(x.strip().split()[0])
    except: return None
clk = [num(r[1]) for r in rows]; pw = [num(r[3]) for r in rows]
busy = [(c, p, r[5].strip()) for c, p, r in zip(clk, pw, rows) if p and p > 200]
print("samples", len(rows), "busy (>200 W)", len(busy))
if busy:
    cs = sorted(c for c, _, _ in busy); ps = sorted(p for _, p, _ in busy)
    q = lambda v, f: v[int(f * (len(v) - 1))]
    print("SM clock MHz p10/p50/p90", q(cs, .1), q(cs, .5), q(cs, .9), " power W p10/p50/p90", q(ps, .1), q(ps, .5), q(ps, .9))
    from collections import Counter
    print("reasons", Counter(x for _, _, x in busy).most_common(4))
PY
for r in 1 2; do grep -h "stage1\|sort=" $O/p$r.csv | head -3 | cut -c1-400; done
NCU=/usr/local/cuda/bin/ncu
for cc in all none; do
  timeout 120 $NCU --clock-control none --cache-control $cc -k regex:wg_stage_kernel --launch-skip 2 -c 2 \
    --section SpeedOfLight .carry/cktune tune -i $O/moe_$t.csv --family moe_2stages -o $O/n_$cc.csv --device gpu \
    --no-progress --kernels "$K" > $O/ncu_$cc.txt 2>&1
  echo "ncu cache-control $cc: $(grep -E "wg_stage_kernel<|Duration|SM Frequency" $O/ncu_$cc.txt | cut -c1-60 | tr -s ' ' | tr '\n' ';')"
done
tar czf $OUT/clk40.tgz -C /tmp clk40
