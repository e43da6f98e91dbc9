#!/usr/bin/env bash
# Prepared in session 32 for a later device call (not run yet): where the decode kernels' time goes, from per-warp time
# stamps. Here: `git apply docs/perf/data/gemm_2026-11-29_s32/probe_decode_untested.diff`, `scripts/gpu_dev_build.sh`,
# `xz -c .carry/gemm_dev > .carryab/gemm_dev.xz`, then `git apply -R` the patch. On the GPU machine (.carryab
# carried), from the repository root: bash docs/perf/data/gemm_2026-11-29_s32/probe32.sh
# Runs `mmad` (8 warps, ring 8: the best decode instance at M = 2...8 on K = 7168) and `gemvh` (8 rows, 16 warps: the
# best at M = 1) on the shapes of the open gap, each with and without the probe (its cost), and summarises the stamps.
set -u
O=/tmp/probe32; mkdir -p $O/stamps
mkdir -p .carry && xz -dc .carryab/gemm_dev.xz > .carry/gemm_dev && chmod +x .carry/gemm_dev
SH=${SHAPES:-"1,2112,7168;2,2112,7168;8,2112,7168;2,4096,7168;2,7168,16384"}
for f in ${FILTERS:-mmad_m8_n16_k128_st8_w8_sk1 gemvh_m1_n8_k512_st1_w16_sk1 mmad_m8_n16_k128_st2_w16_sk1}; do
  .carry/gemm_dev --no-blaslt --iters 40 --filter "$f" --shapes "$SH" > "$O/plain_$f.log" 2>&1
  CKTUNE_PROBE_DIR=$O/stamps .carry/gemm_dev --no-blaslt --iters 40 --filter "$f" --shapes "$SH" > "$O/probe_$f.log" 2>&1
  echo "== $f: µs with the stamps off, then on"
  grep -hE "^== M=|$f " "$O/plain_$f.log" "$O/probe_$f.log" | grep -oE "^== M=[0-9]+ N=[0-9]+ K=[0-9]+|[0-9.]+ us"
done
python3 docs/perf/data/gemm_2026-11-29_s32/probe32.py $O/stamps | tee $O/summary.txt
(cd /tmp && tar czf "$OUT/probe32.tgz" probe32)
