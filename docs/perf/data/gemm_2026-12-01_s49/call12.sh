#!/usr/bin/env bash
# Session 49, call 12 (issue #13): where the kept split-K reduction's ~2.75 us go. Call 6's stamps probe on c4f1a8a with
# two more points inside cluster_splitk_reduce's pieces form (call12_stamps_probe.diff: past the first cluster
# barrier, sums stored; twelve slots a CTA): the two-CTA sk4 row at 64 x 2112 x 7168 and 32 x 2112 x 7168, and
# wgmma_m64_n128_k128_st6_w8_sk4 at 64 x 2112 x 7168.
set -u
O=/tmp/s49c12; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
xz -dc .carry/gemm_dev_probe.xz > $O/gemm_dev; chmod +x $O/gemm_dev
for spec in "wgmma_m64_n64_k128_st4_w8_sk4 64,2112,7168" "wgmma_m64_n64_k128_st4_w8_sk4 32,2112,7168" \
            "wgmma_m64_n128_k128_st6_w8_sk4 64,2112,7168"; do
  set -- $spec
  timeout -s KILL 60 $O/gemm_dev --iters 60 --filter $1 --probe $1 --no-blaslt --shapes "$2" > $O/$1_$2.log 2>&1
  echo "== $1 $2 rc=$?"; grep -E "probe\] wgmma|^    |$1 " $O/$1_$2.log | grep -vE "^== |prod |entry|after sync"
done
tar czf $OUT/s49c12.tgz --exclude=gemm_dev -C /tmp s49c12
