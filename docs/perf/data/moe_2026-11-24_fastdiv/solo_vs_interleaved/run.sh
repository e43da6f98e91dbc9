#!/usr/bin/env bash
# session 14: MoE DSV3 at 4096/16384 tokens, the same tuned table benched alone and interleaved with the
# default, with the SM clock, power and temperature logged every 100 ms.
set -uo pipefail
bash scripts/unpack_carry.sh > /dev/null
O=$OUT
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv,noheader -lms 100 > $O/smi.csv &
SMI=$!
mark() { echo "$(date -u +%H:%M:%S.%N | cut -c1-12) $*" >> $O/marks.txt; }
B=(.carry/cktune bench -i gpu-in/moe_big.csv --family moe_2stages --device gpu --config gpu-in/moe_tuned.csv)
sleep 2
for i in 1 2; do mark "solo$i start"; "${B[@]}" -o $O/solo$i.csv > /dev/null 2>&1; mark "solo$i end"; sleep 3; done
mark "inter start"; "${B[@]}" --against default -o $O/inter.csv > /dev/null 2>&1; mark "inter end"; sleep 3
mark "solo3 start"; "${B[@]}" -o $O/solo3.csv > /dev/null 2>&1; mark "solo3 end"; sleep 3
mark "serial start"; CKTUNE_SERIAL_LAUNCHES=1 "${B[@]}" -o $O/serial.csv > /dev/null 2>&1; mark "serial end"
sleep 1; kill $SMI
for f in solo1 solo2 inter solo3 serial; do
  python3 - $O/$f.csv $f <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(sys.argv[2], r['token'], r['role'], r['us'], r['us_p10'], r['us_p90'], r['verdict'], r.get('parts', ''))
PY
done | tee $O/times.txt
cat $O/marks.txt
