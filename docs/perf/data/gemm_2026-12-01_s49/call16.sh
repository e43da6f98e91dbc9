#!/usr/bin/env bash
# Session 49, call 16 (issue #13): where the push form's time goes. Per-CTA stamps (call16_stamps_probe.diff on
# 661128a's kernels: after barrier 1, past cluster_wait, the push issued, the owner's bytes in, its stores done) at
# 64 x 2112 x 7168 for the two-CTA sk4 row, the k-group sk2 row that wins there now, and 64 x 128 st6 sk4.
set -u
O=/tmp/s49c16; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
xz -dc .carry/gemm_dev_probe.xz > $O/gemm_dev; chmod +x $O/gemm_dev
for spec in "wgmma_m64_n64_k128_st4_w8_sk4 64,2112,7168" "wgmmak_m64_n64_k128_st8_w20_sk2 64,2112,7168" \
            "wgmma_m64_n128_k128_st6_w8_sk4 64,2112,7168"; do
  set -- $spec
  timeout -s KILL 60 $O/gemm_dev --iters 60 --filter $1 --probe $1 --no-blaslt --shapes "$2" > $O/$1_$2.log 2>&1
  echo "== $1 $2 rc=$?"; grep -E "probe\] wgmma|^    |$1 " $O/$1_$2.log | grep -vE "^== |entry|after sync"
done
tar czf $OUT/s49c16.tgz --exclude=gemm_dev -C /tmp s49c16
