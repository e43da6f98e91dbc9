#!/usr/bin/env bash
# session 16, call 9: wgmma stage 1 split along K (sk2, sk4): GPU tests (non-sorting), the DeepSeek-V3 grid with the
# token counts never tuned, the Qwen3.5 grid
set -u
bash scripts/unpack_carry.sh >/dev/null
mkdir -p /tmp/r
timeout 240 .carry/cktune_gpu_tests --gtest_brief=1 --gtest_filter='-GpuMoeSorting.*' > /tmp/r/gtests.txt 2>&1; echo tests rc=$?
grep -E "moe pipelines|PASSED|FAILED|comparisons" /tmp/r/gtests.txt | head -5
OUT=/tmp/r UNTUNED=1 SKIP_TESTS=1 bash scripts/gpu_moe.sh dsv3_tp8 > /tmp/r/run_dsv3.log 2>&1; echo dsv3 rc=$?
cp /tmp/r/moe_summary.txt /tmp/r/moe_summary_dsv3.txt
grep -E "tune rc|check:|agreement|geomean|floor|untuned|faster" /tmp/r/moe_summary_dsv3.txt | head -20
OUT=/tmp/r SKIP_TESTS=1 bash scripts/gpu_moe.sh qwen35_397b > /tmp/r/run_q35.log 2>&1; echo q35 rc=$?
cp /tmp/r/moe_summary.txt /tmp/r/moe_summary_q35.txt
grep -E "tune rc|check:|agreement|geomean" /tmp/r/moe_summary_q35.txt
tar czf $OUT/r.tgz -C /tmp r
echo "=== done $(date +%T)"
