#!/usr/bin/env bash
# Session 37, call 10: the final build's tuned DeepSeek-V3 TP8 table (call 6) benched against the default at token
# counts it was never tuned on, where the lookup takes the next tuned count's row: 3 tokens (the 4-token one-launch
# row, the kernel this session changed), 5 and 6 (the 8-token two-stage row). bench checks every row before timing and
# what the timed launches left. .carryz: cktune.xz.
set -u
bash scripts/unpack_carry.sh > /dev/null
d=docs/perf/data/moe_2026-11-30_s37/call10
mkdir -p /tmp/c10
timeout 70 .carry/cktune bench -i $d/untuned_decode.csv --family moe_2stages --device gpu \
  --config $d/tuned_fmoe_dsv3_tp8_uniform.csv --against default -o /tmp/c10/bench.csv > /tmp/c10/bench.txt 2> /tmp/c10/bench.err
echo "bench rc=$?"; grep -E '^bench:' /tmp/c10/bench.err | tail -1
.carry/cktune compare --interleaved /tmp/c10/bench.csv > /tmp/c10/vs_default.txt 2>&1
sed -n '/per shape/,/^$/p' /tmp/c10/vs_default.txt | cut -c1-40,150-400
python3 -c "
import csv
for r in csv.DictReader(open('/tmp/c10/bench.csv')): print(r['token'], r['role'], r['verdict'], r['us'], r['kernelName'][:60], r['reason'][:60])"
cp /tmp/c10/* "$OUT/"
