#!/usr/bin/env bash
# Session 47, call 2 (issue #11): the DeepSeek-V3 TP8 grid tuned and benched with the binary whose results rows carry
# the bytes of the routing actually timed (CandidateResult::min_bytes: the experts that routing reached), so that the
# byte floor of scripts/gpu_moe.sh and of `cktune report` is that of the routing measured, not the expectation.
set -u
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
O=$OUT/moe; mkdir -p $O
OUT=$O TESTS_FILTER='GpuMoe.*' bash scripts/gpu_moe.sh dsv3_tp8 > /dev/null 2>&1
echo "gpu_moe rc=$?"
cat $O/moe_summary.txt
.carry/cktune report --after $O/bench_dsv3_tp8_uniform.csv --tuned $O/tuned_fmoe_dsv3_tp8_uniform.csv \
  --profile $O/profile_dsv3_tp8_uniform.csv -o $O/report_dsv3.md > /dev/null 2>&1
echo "report rc=$?"
grep -A14 "Furthest from the floor" $O/report_dsv3.md | head -20
