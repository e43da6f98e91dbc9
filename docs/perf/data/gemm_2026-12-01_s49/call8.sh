#!/usr/bin/env bash
# Session 49, call 8 (issue #13): call 7 again with the reduction's second form: 16-byte pieces only where a rank's
# share gives every active thread one (else single elements), loads from up to 8 CTAs in flight (4 in the
# swapped-operand kernel), still for every kernel that calls cluster_splitk_reduce. gemm_dev of HEAD (d5a5c2a) against
# it, in turns (ABAB); every instance of the block table and cuBLASLt, verified, decode and medium M on the grid's
# six (N, K).
set -u
O=/tmp/s49c8; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
for b in head red; do xz -dc .carry/gemm_dev_$b.xz > $O/gemm_dev_$b; chmod +x $O/gemm_dev_$b; done
shapes=""
for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 1 2 8 16 32 64 128; do shapes+="$m,$nk;"; done
done
for r in 1 2; do for b in head red; do
  s=$(date +%s)
  timeout -s KILL 130 $O/gemm_dev_$b --iters 60 --shapes "${shapes%;}" > $O/$b.$r.log 2>&1
  echo "$b.$r rc=$? $(( $(date +%s) - s )) s; FAIL/WRONG lines: $(grep -cE " FAIL | WRONG " $O/$b.$r.log); $(grep "wrong results" $O/$b.$r.log)"
done; done
tar czf $OUT/s49c8.tgz --exclude=gemm_dev_head --exclude=gemm_dev_red -C /tmp s49c8
