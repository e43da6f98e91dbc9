#!/usr/bin/env bash
# Session 45, call 6: the binary of HEAD (no kernel change this session; scripts/build_portable.sh). (1) The 48-shape
# block-scale grid: tune, interleaved bench, tune/bench agreement, tuned against cuBLASLt from the same bench
# (issue #13's standing figures). (2) DeepSeek-V3 TP8 MoE at the 7 token counts the grid does not hold: a tune of
# exactly those, then `bench --config` of its table against the default: does the bench reproduce each shape's own
# winner time, with the timed launches' outputs checked?
set -u
O=/tmp/s45f; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
AGREE=1 bash docs/perf/data/gemm_2026-11-29_s26/s26.sh
.carry/cktune compare /tmp/s26/ag/after_grid.csv --vs-baseline > $O/vs_cublaslt.txt 2>&1
grep -iE "geomean|^  all|decode|medium|prefill" $O/vs_cublaslt.txt | tail -8
g=docs/perf/data/moe_2026-11-30_s45/never_tuned_dsv3_tp8.csv
s=$(date +%s)
timeout -s KILL 240 .carry/cktune tune -i $g --family moe_2stages -o $O/nt_tuned.csv -o2 $O/nt_profile.csv --device gpu \
  --no-progress > $O/nt_tune.txt 2> $O/nt_tune.err
echo "never-tuned counts: tune rc=$? $(( $(date +%s) - s )) s"; tail -2 $O/nt_tune.err
.carry/cktune merge --check $O/nt_tuned.csv 2>&1 | tail -1
s=$(date +%s)
timeout -s KILL 150 .carry/cktune bench -i $g --family moe_2stages --config $O/nt_tuned.csv --against default --device gpu \
  -o $O/nt_after.csv > $O/nt_bench.txt 2> $O/nt_bench.err
echo "bench rc=$? $(( $(date +%s) - s )) s"
.carry/cktune report --after $O/nt_after.csv --tuned $O/nt_tuned.csv -o $O/nt_report.md > /dev/null 2>&1
awk '/^## /{f = ($0 == "## Tune and bench agree"); next} f && NF' $O/nt_report.md
grep -iE "geomean|^  all" $O/nt_bench.txt | head -4
cut -d, -f3,17-23 $O/nt_tuned.csv
(cd /tmp && tar czf "$OUT/s45f.tgz" s45f)
