#!/usr/bin/env bash
# Session 49, call 13 (issue #13): the split-K reduction by push (each CTA st.async-s the rows another CTA of the
# cluster owns into its receive area, completing on its mbarrier; no cluster barrier after the k-loop) against the
# pieces form of c4f1a8a (gemm_dev_red: call 9's "red" build), in turns (ABAB); the wgmma-family rows, verified,
# M = 16...256 on the grid's six (N, K).
set -u
O=/tmp/s49c13; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
for b in red push; do xz -dc .carry/gemm_dev_$b.xz > $O/gemm_dev_$b; chmod +x $O/gemm_dev_$b; done
shapes=""
for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 16 32 64 128 256; do shapes+="$m,$nk;"; done
done
for r in 1 2; do for b in red push; do
  s=$(date +%s)
  timeout -s KILL 130 $O/gemm_dev_$b --iters 60 --filter wgmma --shapes "${shapes%;}" > $O/$b.$r.log 2>&1
  echo "$b.$r rc=$? $(( $(date +%s) - s )) s; FAIL/WRONG lines: $(grep -cE " FAIL | WRONG " $O/$b.$r.log); $(grep "wrong results" $O/$b.$r.log)"
done; done
tar czf $OUT/s49c13.tgz --exclude=gemm_dev_red --exclude=gemm_dev_push -C /tmp s49c13
