#!/usr/bin/env bash
# Prepared in session 32 for a later device call (not run yet): the block-scale persistent kernel on 128 x 192 tiles
# (n192_block_untested.diff; each k-block promoted with the two weight scales its tile spans), verified on ragged shapes
# (N = 7000: a tile over the last, partial scale block) and timed against the other persistent rows and cuBLASLt on
# the grid's M >= 512 shapes, 8192 x 7168 x 16384 among them (issue #13's 1.3 PFLOP/s). Here: git apply the diff,
# scripts/gpu_dev_build.sh, xz -c .carry/gemm_dev > .carryab/gemm_dev.xz, git apply -R. On the GPU machine (.carryab):
#   bash docs/perf/data/gemm_2026-11-29_s32/n192_32.sh
set -u
mkdir -p .carry && xz -dc .carryab/gemm_dev.xz > .carry/gemm_dev && chmod +x .carry/gemm_dev
export OUT=${OUT:-/tmp/out}
O=$OUT/n192; mkdir -p $O
OUT=$O bash scripts/gpu_prefill_run.sh verify time
python3 docs/perf/data/gemm_2026-11-29_s32/n192_32.py $O/prefill.csv | tee $O/n192.txt
(cd $O/.. && tar czf "$OUT/n192.tgz" n192)
