#!/usr/bin/env bash
# Session 49, call 9 (issue #13): gemm_dev of HEAD (d5a5c2a) against HEAD + the kept form of the reduction (the pieces
# form for the wgmma grid kernel only, splitk.cuh kPieces; the other kernels' code unchanged: the same registers in
# every ptxas line), in turns (ABAB); the wgmma-family rows, verified, M = 16...256 on the grid's six (N, K).
set -u
O=/tmp/s49c9; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
for b in head red; do xz -dc .carry/gemm_dev_$b.xz > $O/gemm_dev_$b; chmod +x $O/gemm_dev_$b; done
shapes=""
for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 16 32 64 128 256; do shapes+="$m,$nk;"; done
done
for r in 1 2; do for b in head red; do
  s=$(date +%s)
  timeout -s KILL 130 $O/gemm_dev_$b --iters 60 --filter wgmma --shapes "${shapes%;}" > $O/$b.$r.log 2>&1
  echo "$b.$r rc=$? $(( $(date +%s) - s )) s; FAIL/WRONG lines: $(grep -cE " FAIL | WRONG " $O/$b.$r.log); $(grep "wrong results" $O/$b.$r.log)"
done; done
tar czf $OUT/s49c9.tgz --exclude=gemm_dev_head --exclude=gemm_dev_red -C /tmp s49c9
