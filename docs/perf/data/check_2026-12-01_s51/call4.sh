#!/usr/bin/env bash
# Session 51, call 4 (issue #13): the grid kernel's block scales staged with their k-block
# Calls 2-3: with no scale loads in the grid kernel's plain loop (probe ns) its rows ran 7-16% faster; loading them a
# pass ahead (1-5% slower) or after the wgmma are issued (1.5-3% faster) recovered little. ss = each stage carries its
# k-block's scales in a side area that a producer warp fills by cp.async, arriving on the stage's full barrier; the
# consumers read them from shared memory (call4_staged_scales.diff). ABAB base / ss / ns (the probe again, as the bound)
# over call 2's shapes, the wgmma-family instances (base and ss verified: 0 wrong).
set -u
O=/tmp/s51c4; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
for b in base ss ns; do xz -dc .carryz/dev/gemm_dev_s51$b.xz > $O/gemm_dev_$b; chmod +x $O/gemm_dev_$b; done
shapes=""
for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 16 32 64 128 256; do shapes+="$m,$nk;"; done
done
shapes+="2048,2112,7168;4096,7168,2048;512,7168,16384;4096,2112,7168;1024,4096,7168"
for r in 1 2; do for b in base ss ns; do
  s=$(date +%s)
  if [ $b = ns ]; then export PROBE_TIME_WRONG=1; else unset PROBE_TIME_WRONG; fi
  timeout -s KILL 130 $O/gemm_dev_$b --iters 60 --filter wgmma --shapes "$shapes" > $O/$b.$r.log 2>&1
  echo "$b.$r rc=$? $(( $(date +%s) - s )) s; FAIL/WRONG lines: $(grep -cE " FAIL | WRONG " $O/$b.$r.log); $(grep "wrong results" $O/$b.$r.log)"
done; done
tar czf $OUT/s51c4.tgz --exclude='gemm_dev_*' -C /tmp s51c4
