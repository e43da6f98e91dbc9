#!/usr/bin/env bash
# Session 50, call 3 (issue #13): call 2 put s50b's entry at no gain and s50c's k-group rows 1-4% slower, so with
# 661128a's entry and no change inside the k-loop: s50d = the split cluster barrier waited for at the consumers' start
# (before the k-loop) + the sums shared by the CTA's consumer threads with staged 16-byte stores; s50e = the same wait
# with 661128a's split epilogue (owner warps sum, 4-byte stores). ABAB against 661128a's kernels (push), every
# wgmma-family instance verified, call 1's shapes.
set -u
O=/tmp/s50c3; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
for b in push s50d s50e; do xz -dc .carry/gemm_dev_$b.xz > $O/gemm_dev_$b; chmod +x $O/gemm_dev_$b; done
shapes=""
for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 16 32 64 128 256; do shapes+="$m,$nk;"; done
done
shapes+="2048,2112,7168;4096,7168,2048;512,7168,16384;4096,2112,7168;1024,4096,7168"
for r in 1 2; do for b in push s50d s50e; do
  s=$(date +%s)
  timeout -s KILL 130 $O/gemm_dev_$b --iters 60 --filter wgmma --shapes "$shapes" > $O/$b.$r.log 2>&1
  echo "$b.$r rc=$? $(( $(date +%s) - s )) s; FAIL/WRONG lines: $(grep -cE " FAIL | WRONG " $O/$b.$r.log); $(grep "wrong results" $O/$b.$r.log)"
done; done
tar czf $OUT/s50c3.tgz --exclude='gemm_dev_*' -C /tmp s50c3
