#!/usr/bin/env bash
# Session 49, call 5 (issue #13), the build of call 4: (1) the 40-shape ragged set (scripts/gpu_agreement.sh ragged:
# tune, interleaved bench of its table, tune/bench agreement, against cuBLASLt); (2) seven medium decode shapes no
# tune had held (never_tuned_mid.csv: N = 2112 at M = 24...96, where the two-CTA row is meant to win): tune, then
# `bench --config` of that table, agreement; (3) call 4's grid table benched again at three of its shapes
# (rebench3.csv: M = 1, N = 32768, K = 512 was 1.25x its tune time there, the first shape of that bench).
set -u
O=/tmp/s49c5; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
D=docs/perf/data/gemm_2026-12-01_s49
SKIP_PRELUDE=1 OUT=$O/agree timeout 330 bash scripts/gpu_agreement.sh ragged > $O/agree.log 2>&1
echo "ragged agreement rc=$?"; grep -vE "^\s*$" $O/agree/summary.txt | tail -22
s=$(date +%s)
timeout -s KILL 120 .carry/cktune tune -i $D/never_tuned_mid.csv -o $O/nt_tuned.csv -o2 $O/nt_profile.csv --device gpu \
  --no-progress > $O/nt_tune.txt 2> $O/nt_tune.err
echo "never-tuned mid: tune rc=$? $(( $(date +%s) - s )) s"
timeout -s KILL 90 .carry/cktune bench -i $D/never_tuned_mid.csv --config $O/nt_tuned.csv --against default --device gpu \
  -o $O/nt_after.csv > $O/nt_bench.txt 2> $O/nt_bench.err
echo "bench rc=$?"
.carry/cktune report --after $O/nt_after.csv --tuned $O/nt_tuned.csv -o $O/nt_report.md > /dev/null 2>&1
awk '/^## /{f = ($0 == "## Tune and bench agree"); next} f && NF' $O/nt_report.md
cut -c1-150 $O/nt_tuned.csv
.carry/cktune compare $O/nt_after.csv --vs-baseline > $O/nt_vs_cublaslt.txt 2>&1; awk '/scope +range/{f=1} f' $O/nt_vs_cublaslt.txt | head -6
for r in 1 2; do
  timeout -s KILL 60 .carry/cktune bench -i $D/rebench3.csv --config $D/call4/tuned_grid.csv --device gpu \
    -o $O/rebench$r.csv > /dev/null 2> $O/rebench$r.err
  echo "rebench $r rc=$?"; awk -F, 'NR>1 && $7=="dispatch" {print $4","$5","$6": "$12" "$14" us, p10 "$16", "$21}' $O/rebench$r.csv
done
(cd /tmp && tar czf "$OUT/s49c5.tgz" s49c5)
