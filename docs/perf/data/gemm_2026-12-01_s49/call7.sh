#!/usr/bin/env bash
# Session 49, call 7 (issue #13): gemm_dev of HEAD (d5a5c2a) against HEAD + the cluster split-K reduction reading the
# parked tiles in 16-byte pieces with all of a piece's loads issued before its sums (splitk.cuh; call 6's stamps put
# the old reduction at ~3.5 us of the two-CTA sk4 row's 10 us at 64 x 2112 x 7168), in turns (ABAB); every instance
# of the block table and cuBLASLt, verified, decode and medium M on the grid's six (N, K).
set -u
O=/tmp/s49c7; mkdir -p $O
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
tar czf $OUT/s49c7.tgz --exclude=gemm_dev_head --exclude=gemm_dev_red -C /tmp s49c7
