#!/usr/bin/env bash
# Session 52, call 7 (issue #13): in call 6 the probe pA (the scale warp filling its slots and arriving, the consumers
# reading no scales) ran the paired persistent rows 8-11% slower than base, v9 (the scale warp through registers) as
# slow as v7a: what costs is the scale warp's part, not the consumers' reads. Three more probes on v7a, each with the
# consumers reading no scales (results wrong by design, timed with PROBE_TIME_WRONG): pN = no scale warp work at all and
# the full barrier waiting for the TMA bytes alone (the bound, as session 51's ns2); pB = the scale warp waits for each
# slot and arrives on the full barrier, copying nothing (the coupling and its polling of the empty barrier); pC = the
# scale warp waits for each slot and copies, the full barrier not waiting for it (its copies' traffic).
# ABAB base/pN/pA/pB/pC, call 5's 14 shapes, filter wgmma.
set -u
O=/tmp/s52c7; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
for b in base pN pA pB pC; do
  xz -dc .carryz/dev/gemm_dev_$b.xz > $O/gemm_dev_$b; chmod +x $O/gemm_dev_$b
done
shapes="256,7168,2048;512,7168,16384;1024,4096,7168;2048,2112,7168;4096,7168,2048;4096,2112,7168;2048,24576,1536;4096,32768,512;8192,7168,16384"
shapes+=";64,2112,7168;128,4096,7168;256,2112,7168;128,24576,1536;512,4096,7168"
for r in 1 2; do for b in base pN pA pB pC; do
  s=$(date +%s)
  if [ $b = base ]; then unset PROBE_TIME_WRONG; else export PROBE_TIME_WRONG=1; fi
  timeout -s KILL 150 $O/gemm_dev_$b --iters 40 --filter wgmma --shapes "$shapes" > $O/$b.$r.log 2>&1
  echo "$b.$r rc=$? $(( $(date +%s) - s )) s"
done; done
cp docs/perf/data/gemm_2026-12-01_s50/abab.py $O/
for b in pN pA pB pC; do echo "== $b / base"; python3 $O/abab.py $O/base.1.log,$O/base.2.log $O/$b.1.log,$O/$b.2.log | grep -E "geomean|n="; done
tar czf $OUT/s52c7.tgz --exclude='gemm_dev_*' -C /tmp s52c7
