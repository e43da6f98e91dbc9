#!/usr/bin/env bash
# Session 49, call 11 (issue #13), call 10's build: (1) the per-token GPU tests (their wgmma split rows take the new
# reduction too; call 10's filter missed these parameterised suites); (2) the seven medium shapes no tune had held
# (never_tuned_mid.csv): tune, `bench --config` of its table, agreement; (3) call 6's stamps again on a probe build
# with the kept reduction (call6_stamps_probe.diff on top of it): the two-CTA sk4 row at 64 x 2112 x 7168.
set -u
O=/tmp/s49c11; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
D=docs/perf/data/gemm_2026-12-01_s49
s=$(date +%s)
timeout -s KILL 300 .carry/cktune_gpu_tests --gtest_filter='*GpuPerToken*' > $O/gpu_tests.log 2>&1
echo "per-token gpu tests rc=$? $(( $(date +%s) - s )) s"; grep -E "^\[  (PASSED|FAILED) |FAILED|instance runs passed" $O/gpu_tests.log | head
timeout -s KILL 120 .carry/cktune tune -i $D/never_tuned_mid.csv -o $O/nt_tuned.csv -o2 $O/nt_profile.csv --device gpu \
  --no-progress > $O/nt_tune.txt 2> $O/nt_tune.err
echo "never-tuned mid: tune rc=$?"
timeout -s KILL 90 .carry/cktune bench -i $D/never_tuned_mid.csv --config $O/nt_tuned.csv --against default --device gpu \
  -o $O/nt_after.csv > $O/nt_bench.txt 2> $O/nt_bench.err
echo "bench rc=$?"
.carry/cktune report --after $O/nt_after.csv --tuned $O/nt_tuned.csv -o $O/nt_report.md > /dev/null 2>&1
awk '/^## /{f = ($0 == "## Tune and bench agree"); next} f && NF' $O/nt_report.md
cut -c1-110 $O/nt_tuned.csv
awk -F, 'NR>1 && $7=="dispatch" {print $4","$5","$6": "$12" "$14" us, "$21}' $O/nt_after.csv
xz -dc .carry/gemm_dev_probe.xz > $O/gemm_dev_probe; chmod +x $O/gemm_dev_probe
row=wgmma_m64_n64_k128_st4_w8_sk4
timeout -s KILL 60 $O/gemm_dev_probe --iters 60 --filter $row --probe $row --no-blaslt --shapes "64,2112,7168" > $O/probe.log 2>&1
echo "probe rc=$?"; grep -E "calib|probe|^    |$row" $O/probe.log | grep -v "^== "
tar czf $OUT/s49c11.tgz --exclude=gemm_dev_probe -C /tmp s49c11
