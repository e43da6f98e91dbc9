#!/usr/bin/env bash
# session 15, call 7: the committed binary (29b41dc): GPU tests (non-sorting), the DeepSeek-V3 grid with the
# token counts never tuned, the Qwen3.5 grid, and Qwen3.5 at 8192 tokens benched alone three times
set -u
bash scripts/unpack_carry.sh >/dev/null
mkdir -p /tmp/r
timeout 200 .carry/cktune_gpu_tests --gtest_brief=1 --gtest_filter='-GpuMoeSorting.*' > /tmp/r/gtests.txt 2>&1; echo tests rc=$?
grep -E "moe pipelines|PASSED|FAILED|comparisons" /tmp/r/gtests.txt | head -5
OUT=/tmp/r UNTUNED=1 SKIP_TESTS=1 bash scripts/gpu_moe.sh dsv3_tp8 > /tmp/r/run_dsv3.log 2>&1; echo dsv3 rc=$?
cp /tmp/r/moe_summary.txt /tmp/r/moe_summary_dsv3.txt
grep -E "tune rc|check:|agreement|geomean|floor|untuned|faster" /tmp/r/moe_summary_dsv3.txt | head -20
OUT=/tmp/r SKIP_TESTS=1 bash scripts/gpu_moe.sh qwen35_397b > /tmp/r/run_q35.log 2>&1; echo q35 rc=$?
cp /tmp/r/moe_summary.txt /tmp/r/moe_summary_q35.txt
grep -E "tune rc|check:|agreement|geomean" /tmp/r/moe_summary_q35.txt
awk -F, 'NR==1 || $1==8192' configs/grids/moe_2stages_untuned_fmoe_qwen35_397b.csv > /tmp/q8192.csv
for i in 1 2 3; do
  .carry/cktune bench -i /tmp/q8192.csv --family moe_2stages --device gpu --config /tmp/r/tuned_fmoe_qwen35_397b_uniform.csv -o /tmp/r/q8192_$i.csv > /dev/null 2>&1
  python3 -c "import csv;[print('q35 8192 solo', r['us'], r['us_p10'], r['us_p90'], r['parts']) for r in csv.DictReader(open('/tmp/r/q8192_$i.csv')) if r['role']=='dispatch']"
done
grep ",8192," /tmp/r/tuned_fmoe_qwen35_397b_uniform.csv | cut -d, -f15-25
tar czf $OUT/r.tgz -C /tmp r
echo "=== done $(date +%T)"
