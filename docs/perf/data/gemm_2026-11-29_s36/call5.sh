#!/usr/bin/env bash
# Session 36, call 5: the build with the warp-uniform warpgroup index (.carryz): every GEMM and MoE GPU test, the
# 48-shape block-scale grid's tune and interleaved bench (s26.sh AGREE=1; tuned vs cuBLASLt by compare
# --vs-baseline of the bench), then the DeepSeek-V3 TP8 fused-MoE grid (scripts/gpu_moe.sh: tune, merge --check,
# bench against the default, four never-tuned token counts).
set -u
bash scripts/unpack_carry.sh > /dev/null
mkdir -p /tmp/c5
s=$(date +%s)
timeout -s KILL 240 .carry/cktune_gpu_tests --gtest_filter='GpuBlockscale.*:*GpuPerToken*:GpuMoe.*' > /tmp/c5/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(( $(date +%s) - s )) s"
grep -E "^\[  (PASSED|FAILED) |FAILED|instance runs passed|pipelines" /tmp/c5/gpu_tests.log | head -20
AGREE=1 bash docs/perf/data/gemm_2026-11-29_s26/s26.sh
.carry/cktune compare /tmp/s26/ag/after_grid.csv --vs-baseline > /tmp/c5/vs_cublaslt.txt 2>&1
grep -iE "geomean|all |decode|medium|prefill" /tmp/c5/vs_cublaslt.txt | head -12
mkdir -p /tmp/moe
OUT=/tmp/moe TESTS_FILTER='-' SKIP_TESTS=1 UNTUNED=1 UNTUNED_TOKENS="1536 3072 6144 12288" TUNE_TIMEOUT=200 BENCH_TIMEOUT=120 \
  bash scripts/gpu_moe.sh dsv3_tp8 > /tmp/c5/moe_run.log 2>&1
echo "moe rc=$?"
tail -25 /tmp/moe/moe_summary.txt
gzip -c /tmp/c5/gpu_tests.log > "$OUT/gpu_tests.log.gz"; cp /tmp/c5/vs_cublaslt.txt "$OUT/"
(cd /tmp && tar czf "$OUT/moe.tgz" moe)
