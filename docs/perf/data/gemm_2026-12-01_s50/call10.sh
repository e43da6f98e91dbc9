#!/usr/bin/env bash
# Session 50, call 10 (issue #13): the tiled stream alone. s50m = call 8's probe (661128a's
# kernels, the plain k-loop of the wgmma and wgmmak rows waiting for each stage and handing it back) with no
# epilogue either: each consumer completes the split's cluster barrier and leaves (call10_no_mma_no_epilogue_probe.diff;
# nothing written, timed anyway), and call 8's s50n (the same with its epilogue). Against push, in turns, M = 16...128 on the grid's six (N, K).
set -u
O=/tmp/s50c10; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
for b in push s50n s50m; do xz -dc .carry/gemm_dev_$b.xz > $O/gemm_dev_$b; chmod +x $O/gemm_dev_$b; done
shapes=""
for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 16 32 64 128; do shapes+="$m,$nk;"; done
done
for r in 1 2; do for b in push s50n s50m; do
  PROBE_TIME_WRONG=1 timeout -s KILL 130 $O/gemm_dev_$b --iters 60 --filter wgmma --no-blaslt --shapes "${shapes%;}" \
    > $O/$b.$r.log 2>&1
  echo "$b.$r rc=$?"
done; done
tar czf $OUT/s50c10.tgz --exclude='gemm_dev_*' -C /tmp s50c10
