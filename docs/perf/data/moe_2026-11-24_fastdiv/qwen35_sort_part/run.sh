#!/usr/bin/env bash
# Qwen3.5 (E=512, topk=10): the pipeline's `sort` part with and without overlapped launches.
set -uo pipefail
bash scripts/unpack_carry.sh > /dev/null
B=(.carry/cktune bench -i gpu-in/q35.csv --family moe_2stages --device gpu --config gpu-in/q35_tuned.csv)
for k in 1 2; do
  "${B[@]}" -o $OUT/ovl$k.csv > /dev/null 2>&1
  CKTUNE_SERIAL_LAUNCHES=1 "${B[@]}" -o $OUT/ser$k.csv > /dev/null 2>&1
done
for f in ovl1 ser1 ovl2 ser2; do
  python3 -c "
import csv,sys
for r in csv.DictReader(open('$OUT/$f.csv')): print('$f', r['token'], r['us'], r['kernelName'][:60], r['parts'])
"; done
