#!/usr/bin/env bash
# session 15, call 5: GPU tests (minus the sorting suite, run in call 4 on the same sorting code), then the DeepSeek-V3 and Qwen3.5 grids
set -u
bash scripts/unpack_carry.sh >/dev/null
echo "=== gpu tests $(date +%T)"
timeout 200 .carry/cktune_gpu_tests --gtest_brief=1 --gtest_filter='-GpuMoeSorting.*' > $OUT/gtests.txt 2>&1; echo rc=$?
grep -E "moe pipelines|PASSED|FAILED|comparisons" $OUT/gtests.txt | head
SKIP_TESTS=1 bash scripts/gpu_moe.sh dsv3_tp8 qwen35_397b > $OUT/moe_run.log 2>&1; echo rc=$?
grep -E "tune rc|check:|agreement|geomean|vLLM|floor" $OUT/moe_summary.txt
echo "=== done $(date +%T)"
