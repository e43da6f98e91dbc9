#!/usr/bin/env bash
# Session 25, call 1 (GPU machine, .carryab carried): the multicast rows (wgmmap2mw / wgmmap2mx) first on a few
# shapes (ragged ones included: an odd tile count leaves one CTA of the last pair past the matrix), then
# ab.sh: the build before them against the build with them, the `wgmmap2` rows and cuBLASLt, two rounds.
set -u
xz -dc .carryab/gemm_dev.xz > /tmp/gd && chmod +x /tmp/gd
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
s=$(date +%s)
timeout -s KILL 100 /tmp/gd --iters 10 --filter wgmmap2 \
  --shapes "4096,4096,7168;1000,2112,7168;4100,7168,2048;777,4096,7168;8192,7168,16384;300,576,7168" > $OUT/sanity.log 2>&1
rc=$?
echo "sanity rc=$rc $(( $(date +%s) - s )) s; wrong: $(grep -ciE 'wrong|fail|error' $OUT/sanity.log)"
grep -E '^==|wgmmap2|blaslt' $OUT/sanity.log | grep -v 'blaslt_a' | head -60
[ $rc -eq 0 ] || exit 1
ROUNDS="${ROUNDS:-1 2}" FILTER=wgmmap2 GEMM_DEV_S=${GEMM_DEV_S:-150} \
  EXTRA="1000,2112,7168;4100,7168,2048;777,4096,7168;2500,24576,1536" \
  bash docs/perf/data/gemm_2026-11-25_s23/ab.sh
