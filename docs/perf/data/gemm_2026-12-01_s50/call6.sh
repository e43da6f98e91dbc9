#!/usr/bin/env bash
# Session 50, call 6 (issue #13): is the decode k-loop held by how W reaches DRAM? s50f = 661128a's kernels + the grid
# kernel's producer asking L2 (cp.async.bulk.prefetch.tensor) for all of its CTA's remaining weight boxes right after
# the ring's first requests, at M <= 256 (call6_l2_prefetch.diff). ABAB against push, every wgmma-family instance
# verified, M = 16...256 on the grid's six (N, K).
set -u
O=/tmp/s50c6; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
for b in push s50f; do xz -dc .carry/gemm_dev_$b.xz > $O/gemm_dev_$b; chmod +x $O/gemm_dev_$b; done
shapes=""
for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 16 32 64 128 256; do shapes+="$m,$nk;"; done
done
for r in 1 2; do for b in push s50f; do
  s=$(date +%s)
  timeout -s KILL 130 $O/gemm_dev_$b --iters 60 --filter wgmma --shapes "${shapes%;}" > $O/$b.$r.log 2>&1
  echo "$b.$r rc=$? $(( $(date +%s) - s )) s; FAIL/WRONG lines: $(grep -cE " FAIL | WRONG " $O/$b.$r.log); $(grep "wrong results" $O/$b.$r.log)"
done; done
tar czf $OUT/s50c6.tgz --exclude='gemm_dev_*' -C /tmp s50c6
