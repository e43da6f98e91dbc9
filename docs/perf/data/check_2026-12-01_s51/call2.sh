#!/usr/bin/env bash
# Session 51, call 2 (issue #13, decode at M = 16...128): what the block scales cost in the grid kernel's plain k-loop
# (the `wgmma` and `wgmmak` rows that win decode). base = HEAD's kernels (661128a's); la = each k-block's scales
# asked for one pass of the warpgroup's loop ahead of their promotion (gpu::load_early), a candidate; ns = a probe
# with no scale loads in that loop at all (every block promoted with 1, 1: results wrong by design, timed through
# PROBE_TIME_WRONG). ABAB over session 50's shapes, the wgmma-family instances (base and la verified: 0 wrong).
set -u
O=/tmp/s51c2; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
for b in base la ns; do xz -dc .carryz/dev/gemm_dev_s51$b.xz > $O/gemm_dev_$b; chmod +x $O/gemm_dev_$b; done
shapes=""
for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 16 32 64 128 256; do shapes+="$m,$nk;"; done
done
shapes+="2048,2112,7168;4096,7168,2048;512,7168,16384;4096,2112,7168;1024,4096,7168"
for r in 1 2; do for b in base la ns; do
  s=$(date +%s)
  if [ $b = ns ]; then export PROBE_TIME_WRONG=1; else unset PROBE_TIME_WRONG; fi
  timeout -s KILL 130 $O/gemm_dev_$b --iters 60 --filter wgmma --shapes "$shapes" > $O/$b.$r.log 2>&1
  echo "$b.$r rc=$? $(( $(date +%s) - s )) s; FAIL/WRONG lines: $(grep -cE " FAIL | WRONG " $O/$b.$r.log); $(grep "wrong results" $O/$b.$r.log)"
done; done
tar czf $OUT/s51c2.tgz --exclude='gemm_dev_*' -C /tmp s51c2
