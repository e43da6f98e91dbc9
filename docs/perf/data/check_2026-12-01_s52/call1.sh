#!/usr/bin/env bash
# Session 52, call 1 (issue #13, session 51's NEXT item 1): every block-scale wgmma kernel's scales staged.
# base = 1e7331d's kernels (only the grid kernel's plain loop staged); ss2 = call1_staged_scales_all.diff (the grid
# kernel's paired loop and the persistent kernel's plain, paired, multicast and split-tail loops read their k-block's
# scales from a side slot that the scale warp fills, as the grid kernel's plain loop since 1e7331d; the 128 x 128 x 6
# persistent rows have three slots, not six); ns2 = session 51's probe (no scale loads in the paired loops, results
# wrong by design) as the bound. ABAB, filter wgmma, prefill and medium shapes; base and ss2 verified (0 wrong).
set -u
O=/tmp/s52c1; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
for b in s51head:base s52ss2:ss2 s51ns2:ns2; do
  xz -dc .carryz/dev/gemm_dev_${b%%:*}.xz > $O/gemm_dev_${b##*:}; chmod +x $O/gemm_dev_${b##*:}
done
shapes="256,7168,2048;512,7168,16384;1024,4096,7168;2048,2112,7168;4096,7168,2048;4096,2112,7168;2048,24576,1536;4096,32768,512;8192,7168,16384"
shapes+=";64,2112,7168;128,4096,7168;256,2112,7168;128,24576,1536;512,4096,7168"
for r in 1 2; do for b in base ss2 ns2; do
  s=$(date +%s)
  if [ $b = ns2 ]; then export PROBE_TIME_WRONG=1; else unset PROBE_TIME_WRONG; fi
  timeout -s KILL 150 $O/gemm_dev_$b --iters 40 --filter wgmma --shapes "$shapes" > $O/$b.$r.log 2>&1
  echo "$b.$r rc=$? $(( $(date +%s) - s )) s; FAIL/WRONG lines: $(grep -cE " FAIL | WRONG " $O/$b.$r.log); $(grep "wrong results" $O/$b.$r.log)"
done; done
tar czf $OUT/s52c1.tgz --exclude='gemm_dev_*' -C /tmp s52c1
