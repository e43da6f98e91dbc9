#!/usr/bin/env bash
# Session 52, call 2 (issue #13): why call 1's ss2 ran the grid kernel's plain rows 5-55% slower than base although
# their PTX differs only in the scale warp's loop (not unrolled in ss2, to keep the persistent kernel's producer
# warpgroup in its 40 registers) and in the consumers' loop (not unrolled by the compiler). v1 = ss2 with the scale
# warp's loop unrolled; v2 = ss2 with the grid kernel's consumer loop written out as in base. ABAB base/ss2/v1/v2, four
# shapes, filter wgmma.
set -u
O=/tmp/s52c2; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
for b in s51head:base s52ss2:ss2 s52v1:v1 s52v2:v2; do
  xz -dc .carryz/dev/gemm_dev_${b%%:*}.xz > $O/gemm_dev_${b##*:}; chmod +x $O/gemm_dev_${b##*:}
done
shapes="256,2112,7168;2048,2112,7168;512,4096,7168;4096,7168,2048"
for r in 1 2; do for b in base ss2 v1 v2; do
  s=$(date +%s)
  timeout -s KILL 100 $O/gemm_dev_$b --iters 40 --filter wgmma --shapes "$shapes" > $O/$b.$r.log 2>&1
  echo "$b.$r rc=$? $(( $(date +%s) - s )) s; FAIL/WRONG lines: $(grep -cE " FAIL | WRONG " $O/$b.$r.log); $(grep "wrong results" $O/$b.$r.log)"
done; done
tar czf $OUT/s52c2.tgz --exclude='gemm_dev_*' -C /tmp s52c2
