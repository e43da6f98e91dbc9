#!/usr/bin/env bash
# Session 38, call 6: stage 2's weight scales one a lane (`wl`: lane j loads scale j of the tile's halves x k-blocks,
# a shuffle broadcasts it where used), so that no warp-uniform global load is moved into a uniform register and
# waited on at the end of each tile (calls 3 and 5: 6.0-6.1% of the samples). (a) GpuMoe.* on the new build; (b) the
# DeepSeek-V3 TP8 tune cut to the wgmma pipelines at 8...16384 tokens, base (e0554a1) and new in turn, two rounds;
# (c) the new build's round-2 table benched against the default at the same token counts (bench against tune).
# .carryz: cktune.xz (new), cktune_base.xz (e0554a1's build, = call 2's), cktune_gpu_tests.xz (new).
set -u
bash scripts/unpack_carry.sh > /dev/null
mkdir -p /tmp/c6
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.limit,temperature.gpu --format=csv,noheader
timeout -s KILL 100 .carry/cktune_gpu_tests --gtest_filter='GpuMoe.*' > /tmp/c6/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "^\[  (PASSED|FAILED) |FAILED|pipelines" /tmp/c6/gpu_tests.log | head -8
gzip -c /tmp/c6/gpu_tests.log > "$OUT/gpu_tests.log.gz"
ROUNDS=2 TOKENS="8 64 512 2048 4096 8192 16384" TUNE_S=120 VARIANTS="base:cktune_base:- new:cktune:-" \
  KRE='s1wg_bm(64_n128|64_n256|128_n128)_st4[+]cktune_moe_s2wg_bm(64|128)_n(128|256)_st4(_so)?_acc_g1$' \
  bash docs/perf/data/moe_2026-11-29_s31/ab.sh > /tmp/c6/ab.txt 2>&1
sed -n 6,14p /tmp/c6/ab.txt
python3 docs/perf/data/moe_2026-11-30_s38/s2ab.py /tmp/s31 > /tmp/c6/s2ab.txt
timeout 90 .carry/cktune bench -i /tmp/s31/grid.csv --family moe_2stages --device gpu --config /tmp/s31/tuned_new_2.csv \
  --against default -o /tmp/c6/bench.csv > /tmp/c6/bench.txt 2> /tmp/c6/bench.err
echo "bench rc=$?"
python3 - <<'PY'
import csv
tune = {r['token']: float(r['us']) for r in csv.DictReader(open('/tmp/s31/tuned_new_2.csv'))}
for r in csv.DictReader(open('/tmp/c6/bench.csv')):
    if r['role'] == 'dispatch':
        print(r['token'], r['verdict'], 'bench', r['us'], 'tune', tune.get(r['token']), 'bench/tune', f"{float(r['us']) / tune[r['token']]:.3f}")
PY
cp /tmp/c6/ab.txt /tmp/c6/s2ab.txt /tmp/c6/bench.* "$OUT/"
(cd /tmp && tar czf "$OUT/s31.tgz" s31)
