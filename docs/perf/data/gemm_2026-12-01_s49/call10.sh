#!/usr/bin/env bash
# Session 49, call 10 (issue #13): scripts/build_portable.sh of HEAD + the kept reduction (the wgmma grid kernel's
# cluster split-K reduction in 16-byte pieces, kPieces). (1) The block-scale and per-token GPU tests (every instance
# against the reference on ragged shapes). (2) The 48-shape grid: tune, interleaved bench, agreement, tuned against
# cuBLASLt. (3) The ragged set the same way.
set -u
O=/tmp/s49c10; mkdir -p $O
bash scripts/unpack_carry.sh > /dev/null
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
TESTS=1 GF='GpuBlockscale.*:GpuPerToken.*' AGREE=1 bash docs/perf/data/gemm_2026-11-29_s26/s26.sh
.carry/cktune compare /tmp/s26/ag/after_grid.csv --vs-baseline > $O/vs_cublaslt.txt 2>&1
awk '/scope +range/{f=1} f' $O/vs_cublaslt.txt | head -6
SKIP_PRELUDE=1 OUT=$O/ragged timeout 300 bash scripts/gpu_agreement.sh ragged > $O/ragged.log 2>&1
echo "ragged rc=$?"; grep -E "tune ragged rc|shapes within" $O/ragged/summary.txt
mkdir -p $O/rg && tar xzf $O/ragged/agreement.tgz -C $O/rg
.carry/cktune compare $O/rg/after_ragged.csv --vs-baseline 2>&1 | awk '/scope +range/{f=1} f' | head -6
(cd /tmp && tar czf "$OUT/s49c10.tgz" s49c10 s26)
