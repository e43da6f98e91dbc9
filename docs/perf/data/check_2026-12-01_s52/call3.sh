#!/usr/bin/env bash
# Session 52, call 3 (issue #13): v1 (call 2: every kernel's block scales staged, the scale warp's loop unrolled) ran
# the grid rows and the plain persistent rows at base's time or faster (wgmmap 0.86-0.97) but the paired persistent
# rows (wgmmap2, mw, mx, t) 11-30% slower; in its SASS the consumers multiply x * w right after the shared loads,
# between a k-block's first and second wgmma. v3 = v1 with the product formed at the promotion; v4 = v1 with the paired
# loop reading its staged scales at the promotion (before the release). ABAB base/v1/v3/v4, call 2's four shapes; and
# v3's / v4's SASS for reading here.
set -u
O=/tmp/s52c3; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
for b in s51head:base s52v1:v1 s52v3:v3 s52v4:v4; do
  xz -dc .carryz/dev/gemm_dev_${b%%:*}.xz > $O/gemm_dev_${b##*:}; chmod +x $O/gemm_dev_${b##*:}
done
shapes="256,2112,7168;2048,2112,7168;512,4096,7168;4096,7168,2048"
for r in 1 2; do for b in base v1 v3 v4; do
  s=$(date +%s)
  timeout -s KILL 100 $O/gemm_dev_$b --iters 40 --filter wgmma --shapes "$shapes" > $O/$b.$r.log 2>&1
  echo "$b.$r rc=$? $(( $(date +%s) - s )) s; FAIL/WRONG lines: $(grep -cE " FAIL | WRONG " $O/$b.$r.log); $(grep "wrong results" $O/$b.$r.log)"
done; done
tar czf $OUT/s52c3.tgz --exclude='gemm_dev_*' -C /tmp s52c3
for v in v3 v4; do xz -dc .carryz/sass/$v.o.xz > /tmp/$v.o; /usr/local/cuda/bin/cuobjdump -sass /tmp/$v.o | xz -T8 > $OUT/$v.sass.xz; done
