#!/usr/bin/env bash
# Session 37, call 2 (session 36's prepared pair, ../gemm_2026-11-29_s36/next/NEXT.md):
# (1) sass36.sh: ncu's SASS with execution counts of wgmmap2_m128_n128_k128_st4_w12_sk1 at 8192x7168x16384 from
#     a880336's kernels (.carryab/gemm_dev_base.xz) and HEAD's (gemm_dev_new.xz, with the warp-uniform warpgroup index),
#     warp instructions by opcode;
# (2) the multicast pairs' cluster rank through warp_uniform (mc_rank_uniform_untested.diff, gemm_dev_mc.xz) against
#     HEAD: gab36.sh on the multicast rows (wgmmap2m), two rounds, then the plain rows (wgmmap2_) one round.
set -u
bash docs/perf/data/gemm_2026-11-29_s36/next/sass36.sh
cp .carryab/gemm_dev_new.xz .carryab/gemm_dev_base.xz
cp .carryab/gemm_dev_mc.xz .carryab/gemm_dev_new.xz
PREFILL_FILTER=wgmmap2m DECODE=0 ROUNDS=2 bash docs/perf/data/gemm_2026-11-29_s36/gab36.sh
mv $OUT/gab.tgz $OUT/gab_mc.tgz; rm -rf /tmp/gab
PREFILL_FILTER=wgmmap2_ DECODE=0 ROUNDS=1 bash docs/perf/data/gemm_2026-11-29_s36/gab36.sh
