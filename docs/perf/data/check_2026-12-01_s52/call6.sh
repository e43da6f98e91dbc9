#!/usr/bin/env bash
# Session 52, call 6 (issue #13): call 5's v7a ran the paired rows (wgmma2, wgmmap2*) 7-25% slower than base with
# their scales staged, the plain persistent rows 5-11% faster, and the grid kernel's plain rows 5% slower than base's
# own staging (the fill's form). The paired rows are as slow with four slots as with three, so not the slot count.
# v9 = the scale warp loads a k-block's scales into registers (ld.global, rows past M as 0) before it waits for the
# slot, stores them with st.shared and arrives once (after __syncwarp) on the stage's full barrier: no cp.async, and
# the loads' latency spent while the warp waits. pA = probe on v7a: the scale warp fills and arrives as in v7a, the
# consumers read no scales (1, 1; results wrong by design, timed with PROBE_TIME_WRONG): is it the barrier's wait for
# the copies or the consumers' reads? ABAB base/v7a/v9/pA, call 5's 14 shapes, filter wgmma.
set -u
O=/tmp/s52c6; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
for b in base v7a v9 pA; do
  xz -dc .carryz/dev/gemm_dev_$b.xz > $O/gemm_dev_$b; chmod +x $O/gemm_dev_$b
done
shapes="256,7168,2048;512,7168,16384;1024,4096,7168;2048,2112,7168;4096,7168,2048;4096,2112,7168;2048,24576,1536;4096,32768,512;8192,7168,16384"
shapes+=";64,2112,7168;128,4096,7168;256,2112,7168;128,24576,1536;512,4096,7168"
for r in 1 2; do for b in base v7a v9 pA; do
  s=$(date +%s)
  if [ $b = pA ]; then export PROBE_TIME_WRONG=1; else unset PROBE_TIME_WRONG; fi
  timeout -s KILL 150 $O/gemm_dev_$b --iters 40 --filter wgmma --shapes "$shapes" > $O/$b.$r.log 2>&1
  echo "$b.$r rc=$? $(( $(date +%s) - s )) s; FAIL/WRONG lines: $(grep -cE " FAIL | WRONG " $O/$b.$r.log); $(grep "wrong results" $O/$b.$r.log)"
done; done
cp docs/perf/data/gemm_2026-12-01_s50/abab.py $O/
for b in v7a v9 pA; do echo "== $b / base"; python3 $O/abab.py $O/base.1.log,$O/base.2.log $O/$b.1.log,$O/$b.2.log | grep -E "geomean|n="; done
tar czf $OUT/s52c6.tgz --exclude='gemm_dev_*' -C /tmp s52c6
