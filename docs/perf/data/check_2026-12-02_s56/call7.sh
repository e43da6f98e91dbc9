#!/usr/bin/env bash
# Session 56, call 7 (trustworthy numbers): the clocks while 1 x 32768 x 512 runs slow right after 8192 x 24576 x 1536.
# Call 6: 9.89 / 10.18 us right after it at the default protocol against 9.41 / 9.50 alone; call 5 (300 ms a role): not
# slow. Here the pair at the default protocol twice and the short shape alone once, at -vv (each launch), with
# nvidia-smi every 10 ms (SM and memory clocks, power, throttle reasons) and a time stamp on this host's clock printed
# before and after each bench, so that the samples can be placed against the benches.
set -u
bash scripts/unpack_carry.sh > /dev/null
D=docs/perf/data/check_2026-12-02_s56; O=/tmp/s56c7; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid --format=csv,noheader
printf 'M,N,K\n8192,24576,1536\n1,32768,512\n' > $O/a.csv
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader -lms 10 > $O/smi.csv 2>&1 &
smi=$!
sleep 1
for t in a1 c1 a2; do
  f=${t%?}; [ $f = c ] && in=$D/one.csv || in=$O/a.csv
  echo "$t start $(date +%H:%M:%S.%N | cut -c1-12)" >> $O/stamps.txt
  timeout 100 .carry/cktune bench -i $in --config $D/call2_tuned.csv --device gpu -vv -o $O/$t.csv > /dev/null 2> $O/$t.err
  echo "$t end $(date +%H:%M:%S.%N | cut -c1-12)" >> $O/stamps.txt
  awk -F, -v t="$t" 'NR==1{for(i=1;i<=NF;i++){h[$i]=i}} NR>1 && $h["M"]==1 {print t, $h["role"], $h["kernelName"], $h["us"], $h["us_p10"], $h["us_p90"]}' $O/$t.csv
  sleep 2
done
kill $smi
cat $O/stamps.txt
python3 - $O <<'PY'
import sys, re
O = sys.argv[1]
rows = [l.strip().split(", ") for l in open(f"{O}/smi.csv") if l.count(",") >= 5]
# the busy stretches: samples with power above 150 W, and the 40 samples after each stretch ends
busy = [i for i, r in enumerate(rows) if r[3].split()[0].replace('.', '', 1).isdigit() and float(r[3].split()[0]) > 150]
ends = [i for i in busy if i + 1 < len(rows) and i + 1 not in busy]
print("smi samples:", len(rows), "busy:", len(busy), "stretch ends at", ends)
for e in ends:
    for r in rows[max(0, e - 6): e + 25]: print("  ", " | ".join(r))
    print("  --")
PY
(cd /tmp && tar czf "$OUT/s56c7.tgz" s56c7)
