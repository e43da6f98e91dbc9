#!/usr/bin/env bash
# Session 50, call 7 (issue #13): is the decode GEMM's weight stream held by the tile order of its reads? gemm_dev's
# new --tile-read calibration (661128a's kernels): the weights read by 64-row tiles in 1, 2 or 4 contiguous K slices,
# 128 or 512 bytes of each row a step, against the plain stream read, at the decode shapes of the grid's six (N, K)
# (M = 64; the reads do not depend on M) with the two fastest rows of 64 x 2112 x 7168 for reference.
set -u
O=/tmp/s50c7; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
xz -dc .carry/gemm_dev_s50t.xz > $O/gemm_dev; chmod +x $O/gemm_dev
for r in 1 2; do
  timeout -s KILL 100 $O/gemm_dev --iters 60 --tile-read --filter wgmmak_m64_n64_k128_st8_w20_sk2 --no-blaslt \
    --shapes "64,2112,7168;64,24576,1536;64,32768,512;64,7168,16384;64,4096,7168;64,7168,2048" > $O/tile.$r.log 2>&1
  echo "tile.$r rc=$?"; grep -E "^== |calib|wgmmak" $O/tile.$r.log
done
tar czf $OUT/s50c7.tgz --exclude=gemm_dev -C /tmp s50c7
