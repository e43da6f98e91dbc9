#!/usr/bin/env bash
# Session 50, call 5 (issue #13): do deeper rings at one CTA an SM speed up the decode split rows? s50k = 661128a's
# kernels + six rows (call5_deep_rings_withdrawn.diff): k-group rows of 64 x 64 with 12 stages (sk1, sk2; two and four
# k-groups), the plain 64 x 64 row with 12 stages sk2, k-group 64 x 128 rows with 8 stages sk1 and 7 stages sk2.
# ABAB against push, every wgmma-family instance verified, M = 16...256 on the grid's six (N, K).
set -u
O=/tmp/s50c5; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
for b in push s50k; do xz -dc .carry/gemm_dev_$b.xz > $O/gemm_dev_$b; chmod +x $O/gemm_dev_$b; done
shapes=""
for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 16 32 64 128 256; do shapes+="$m,$nk;"; done
done
for r in 1 2; do for b in push s50k; do
  s=$(date +%s)
  timeout -s KILL 130 $O/gemm_dev_$b --iters 60 --filter wgmma --shapes "${shapes%;}" > $O/$b.$r.log 2>&1
  echo "$b.$r rc=$? $(( $(date +%s) - s )) s; FAIL/WRONG lines: $(grep -cE " FAIL | WRONG " $O/$b.$r.log); $(grep "wrong results" $O/$b.$r.log)"
done; done
tar czf $OUT/s50c5.tgz --exclude='gemm_dev_*' -C /tmp s50c5
