#!/usr/bin/env bash
# Session 49, call 14 (issue #13): scripts/build_portable.sh of the split-K reduction by push (the wgmma grid kernel).
# (1) The block-scale and per-token GPU tests (every instance against the reference on ragged shapes). (2) The
# 48-shape grid: tune, interleaved bench, agreement, tuned against cuBLASLt. (3) The ragged set the same way. (4) The
# seven medium shapes no tune had held: tune, `bench --config`, agreement.
set -u
O=/tmp/s49c14; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
D=docs/perf/data/gemm_2026-12-01_s49
s=$(date +%s)
timeout -s KILL 200 .carry/cktune_gpu_tests --gtest_filter='GpuBlockscale.*:*GpuPerToken*' > $O/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(( $(date +%s) - s )) s"; grep -E "^\[  (PASSED|FAILED) |FAILED|instance runs passed" $O/gpu_tests.log | head
AGREE=1 bash docs/perf/data/gemm_2026-11-29_s26/s26.sh > $O/grid.txt 2>&1
grep -E "tune grid rc|shapes within|grid tune" $O/grid.txt
.carry/cktune compare /tmp/s26/ag/after_grid.csv --vs-baseline > $O/vs_cublaslt.txt 2>&1
awk '/scope +range/{f=1} f' $O/vs_cublaslt.txt | head -6
SKIP_PRELUDE=1 OUT=$O/ragged timeout 200 bash scripts/gpu_agreement.sh ragged > $O/ragged.log 2>&1
echo "ragged rc=$?"; grep -E "tune ragged rc|shapes within" $O/ragged/summary.txt
mkdir -p $O/rg && tar xzf $O/ragged/agreement.tgz -C $O/rg
.carry/cktune compare $O/rg/after_ragged.csv --vs-baseline 2>&1 | awk '/scope +range/{f=1} f' | head -6
timeout -s KILL 60 .carry/cktune tune -i $D/never_tuned_mid.csv -o $O/nt_tuned.csv -o2 $O/nt_profile.csv --device gpu \
  --no-progress > $O/nt_tune.txt 2> $O/nt_tune.err
timeout -s KILL 60 .carry/cktune bench -i $D/never_tuned_mid.csv --config $O/nt_tuned.csv --against default --device gpu \
  -o $O/nt_after.csv > $O/nt_bench.txt 2> $O/nt_bench.err
.carry/cktune report --after $O/nt_after.csv --tuned $O/nt_tuned.csv -o $O/nt_report.md > /dev/null 2>&1
awk '/^## /{f = ($0 == "## Tune and bench agree"); next} f && NF' $O/nt_report.md
awk -F, 'NR>1 && $7=="dispatch" {print $4","$5","$6": "$12" "$14" us, "$21}' $O/nt_after.csv
(cd /tmp && tar czf "$OUT/s49c14.tgz" s49c14 s26)
