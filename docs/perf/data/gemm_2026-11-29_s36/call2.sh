#!/usr/bin/env bash
# Session 36, call 2: `mmat` (mma_tma.cuh), the warp-MMA decode kernel fed by a TMA ring, against every other
# block-scale instance. gemm_dev (.carryab/gemm_dev.xz): first the mmat rows alone on ragged shapes (N not a
# multiple of 16, K not a multiple of a stage, M not a multiple of 8), then s26.sh's decode table at M = 1…16 on the
# grid's six (N, K) against one streaming read of the same weights, every instance verified.
set -u
mkdir -p .carry /tmp/s26
xz -dc .carryab/gemm_dev.xz > .carry/gemm_dev.dev; chmod +x .carry/gemm_dev.dev
timeout -s KILL 120 .carry/gemm_dev.dev --iters 20 --filter mmat \
  --shapes "3,2000,7040;5,1000,1536;13,4100,2944;16,2112,7168;1,130,512;8,24576,1536;7,7168,16384" > /tmp/s26/ragged.log 2>&1
echo "ragged rc=$?: $(grep -cE ' us ' /tmp/s26/ragged.log) timed, $(grep -ciE 'wrong|fail' /tmp/s26/ragged.log) wrong or failed"
grep -iE "wrong|fail" /tmp/s26/ragged.log | head
DEV=1 MS="1 2 4 8 16" PREFIX=mmat GEMM_DEV_S=420 bash docs/perf/data/gemm_2026-11-29_s26/s26.sh
