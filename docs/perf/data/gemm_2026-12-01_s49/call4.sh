#!/usr/bin/env bash
# Session 49, call 4 (issue #13): scripts/build_portable.sh of HEAD + the two-CTA split-K row
# (wgmma_m64_n64_k128_st4_w8_sk4, WgCfg MINB = 2). (1) The block-scale GPU tests (every instance, the new row
# included, against the reference on ragged shapes). (2) The 48-shape grid: tune (time, first result), interleaved
# bench, tune/bench agreement, tuned against cuBLASLt from the same bench.
set -u
O=/tmp/s49c4; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
TESTS=1 GF='GpuBlockscale.*' AGREE=1 bash docs/perf/data/gemm_2026-11-29_s26/s26.sh
.carry/cktune compare /tmp/s26/ag/after_grid.csv --vs-baseline > $O/vs_cublaslt.txt 2>&1
grep -iE "geomean|^  all|decode|medium|prefill" $O/vs_cublaslt.txt | tail -8
grep -E "wgmma_m64_n64_k128_st4_w8_sk4" /tmp/s26/ag/tuned_grid.csv | cut -d, -f1-12 | head
(cd /tmp && tar czf "$OUT/s49c4.tgz" s49c4 s26)
