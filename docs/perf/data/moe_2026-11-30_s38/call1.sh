#!/usr/bin/env bash
# Session 38, call 1. (a) Session 37's call 10 with HEAD's build (cktune_base): call 6's tuned DeepSeek-V3 TP8 table
# benched against the default at 3, 5 and 6 tokens, never tuned (3 tokens takes the 4-token one-launch row, the
# kernel session 37 changed); bench checks every row before timing and what the timed launches left.
# (b) Three stage-2 changes against HEAD: `ew`, session 37's expert_word_untested.diff (the next tile's expert id
# through a word of shared memory a stage); `sc` (the staged stores' shuffles, shared-memory loads and adds issued as
# three batches, the adds predicated instead of branched around; sc.diff); `sd` (sc, and the two-half rows add their
# first half's pieces while the second half's wgmma runs; sd.diff). The DeepSeek-V3 TP8 tune cut to the wgmma
# pipelines at 8...16384 tokens (every candidate verified), base, ew, sc and sd in turn, two rounds; s2ab.py. No test
# binary (the carry limit); GpuMoe.* runs with the build that is kept.
# .carryz: cktune_base.xz (HEAD), cktune_ew.xz, cktune_sc.xz, cktune_sd.xz.
set -u
bash scripts/unpack_carry.sh > /dev/null
d=docs/perf/data/moe_2026-11-30_s37/call10
mkdir -p /tmp/c10
timeout 70 .carry/cktune_base bench -i $d/untuned_decode.csv --family moe_2stages --device gpu \
  --config $d/tuned_fmoe_dsv3_tp8_uniform.csv --against default -o /tmp/c10/bench.csv > /tmp/c10/bench.txt 2> /tmp/c10/bench.err
echo "bench rc=$?"; grep -E '^bench:' /tmp/c10/bench.err | tail -1
.carry/cktune_base compare --interleaved /tmp/c10/bench.csv > /tmp/c10/vs_default.txt 2>&1
sed -n '/per shape/,/^$/p' /tmp/c10/vs_default.txt | cut -c1-40,150-400
python3 -c "
import csv
for r in csv.DictReader(open('/tmp/c10/bench.csv')): print(r['token'], r['role'], r['verdict'], r['us'], r['kernelName'][:60], r['reason'][:60])"
mkdir -p "$OUT/c10"; cp /tmp/c10/* "$OUT/c10/"
ROUNDS=2 TOKENS="8 64 512 2048 4096 8192 16384" TUNE_S=200 \
  VARIANTS="base:cktune_base:- ew:cktune_ew:- sc:cktune_sc:- sd:cktune_sd:-" \
  KRE='s1wg_bm(64_n128|64_n256|128_n128)_st4[+]cktune_moe_s2wg_bm(64|128)_n(128|256)_st4(_so)?_acc_g1$' \
  bash docs/perf/data/moe_2026-11-29_s31/ab.sh
python3 docs/perf/data/moe_2026-11-30_s38/s2ab.py /tmp/s31 | tee /tmp/s31/s2ab.txt
cp /tmp/s31/s2ab.txt "$OUT/"
