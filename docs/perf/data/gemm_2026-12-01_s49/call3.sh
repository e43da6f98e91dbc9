#!/usr/bin/env bash
# Session 49, call 3 (issue #13): base (HEAD) and new2 (HEAD + gpu::load_early for the wgmma kernels' block scales + five
# split-K rows for decode at M <= 64: two-CTA-an-SM 64 x 64 tiles in 1 x 1 x 4 clusters with 4 or 6 stages (plain and
# paired), and one-CTA-an-SM 64 x 64 tiles with 8 stages in 1 x 1 x 3 clusters (plain and paired)) taking turns, ABAB,
# every wgmma-family instance verified; decode M = 16...128 on the grid's six (N, K) and five prefill shapes.
set -u
O=/tmp/s49c3; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
for b in base new2; do xz -dc .carry/gemm_dev_$b.xz > $O/gemm_dev_$b; chmod +x $O/gemm_dev_$b; done
shapes=""
for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 16 32 64 128; do shapes+="$m,$nk;"; done
done
shapes+="2048,2112,7168;4096,7168,2048;512,7168,16384;4096,2112,7168;1024,4096,7168"
for r in 1 2; do for b in base new2; do
  s=$(date +%s)
  timeout -s KILL 120 $O/gemm_dev_$b --iters 60 --filter wgmma --shapes "$shapes" > $O/$b.$r.log 2>&1
  echo "$b.$r rc=$? $(( $(date +%s) - s )) s; FAIL lines: $(grep -c " FAIL " $O/$b.$r.log); $(grep "wrong results" $O/$b.$r.log)"
done; done
tar czf $OUT/s49c3.tgz --exclude=gemm_dev_base --exclude=gemm_dev_new2 -C /tmp s49c3
