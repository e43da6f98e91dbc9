#!/usr/bin/env bash
# Session 52, call 4 (issue #13): call 3 ruled out the consumers' placement of the scale reads (v3, v4: no change).
# v1's SASS: the scale warp's unrolled copies, clamping a row past M to row 0, need more than the producer
# warpgroup's 40 registers, and ptxas spilled the persistent kernel's tile counter (LDL at each tile's start, STL at
# its end; the scale warp's cp.async.ca lines share that L1). v5 = v1 with the scale warp stepping one pointer by 32
# rows and skipping a row past M (its slot zeroed at the start), which leaves only the split-tail kernel spilling
# (16 bytes). ABAB base/v1/v5 on call 2's shapes, then base/v5 on call 1's 14 shapes; v5's SASS.
set -u
O=/tmp/s52c4; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
for b in s51head:base s52v1:v1 s52v5:v5; do
  xz -dc .carryz/dev/gemm_dev_${b%%:*}.xz > $O/gemm_dev_${b##*:}; chmod +x $O/gemm_dev_${b##*:}
done
run() {  # tag binary shapes
  s=$(date +%s)
  timeout -s KILL 150 $O/gemm_dev_$2 --iters 40 --filter wgmma --shapes "$3" > $O/$1.log 2>&1
  echo "$1 rc=$? $(( $(date +%s) - s )) s; FAIL/WRONG lines: $(grep -cE " FAIL | WRONG " $O/$1.log); $(grep "wrong results" $O/$1.log)"
}
shapes="256,2112,7168;2048,2112,7168;512,4096,7168;4096,7168,2048"
for r in 1 2; do for b in base v1 v5; do run q$b.$r $b "$shapes"; done; done
shapes="256,7168,2048;512,7168,16384;1024,4096,7168;2048,2112,7168;4096,7168,2048;4096,2112,7168;2048,24576,1536;4096,32768,512;8192,7168,16384"
shapes+=";64,2112,7168;128,4096,7168;256,2112,7168;128,24576,1536;512,4096,7168"
for r in 1 2; do for b in base v5; do run f$b.$r $b "$shapes"; done; done
tar czf $OUT/s52c4.tgz --exclude='gemm_dev_*' -C /tmp s52c4
xz -dc .carryz/sass/v5.o.xz > /tmp/v5.o; /usr/local/cuda/bin/cuobjdump -sass /tmp/v5.o | xz -T8 > $OUT/v5.sass.xz
