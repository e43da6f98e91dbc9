#!/usr/bin/env bash
# Session 51, call 5 (issue #13, NEXT item 1): the bound for staging the paired-block and persistent kernels' scales.
# head = 1e7331d's kernels; ns2 = the probe call5_no_scale_loads_paired_probe.diff (promote_in_turns with no scale
# loads: results wrong by design, timed through PROBE_TIME_WRONG). ABAB on the prefill and medium shapes, filter wgmma.
set -u
O=/tmp/s51c5; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
for b in head ns2; do xz -dc .carryz/dev/gemm_dev_s51$b.xz > $O/gemm_dev_$b; chmod +x $O/gemm_dev_$b; done
shapes="256,7168,2048;512,7168,16384;1024,4096,7168;2048,2112,7168;4096,7168,2048;4096,2112,7168;2048,24576,1536;4096,32768,512;8192,7168,16384"
for r in 1 2; do for b in head ns2; do
  s=$(date +%s)
  if [ $b = ns2 ]; then export PROBE_TIME_WRONG=1; else unset PROBE_TIME_WRONG; fi
  timeout -s KILL 130 $O/gemm_dev_$b --iters 40 --filter wgmma --shapes "$shapes" > $O/$b.$r.log 2>&1
  echo "$b.$r rc=$? $(( $(date +%s) - s )) s; $(grep "wrong results" $O/$b.$r.log)"
done; done
tar czf $OUT/s51c5.tgz --exclude='gemm_dev_*' -C /tmp s51c5
