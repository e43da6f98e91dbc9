#!/usr/bin/env bash
# Session 52, call 9 (issue #13): call 8's v10 (v7a with the scale warp asking L2 for a tile's x_scale block and
# w_scale row by per-line prefetch.global.L2 at the tile's start) failed its first launch (unspecified launch failure,
# both rounds; not understood here: the producer warpgroup runs in 40 registers). v11 = v7a with the TMA thread
# asking for the same two blocks by one bulk prefetch each (cp.async.bulk.prefetch.L2) as it starts a tile.
# ABAB base/v11, call 5's 14 shapes, filter wgmma; every instance verified.
set -u
O=/tmp/s52c9; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
for b in base v11; do
  xz -dc .carryz/dev/gemm_dev_$b.xz > $O/gemm_dev_$b; chmod +x $O/gemm_dev_$b
done
shapes="256,7168,2048;512,7168,16384;1024,4096,7168;2048,2112,7168;4096,7168,2048;4096,2112,7168;2048,24576,1536;4096,32768,512;8192,7168,16384"
shapes+=";64,2112,7168;128,4096,7168;256,2112,7168;128,24576,1536;512,4096,7168"
for r in 1 2; do for b in base v11; do
  s=$(date +%s)
  timeout -s KILL 100 $O/gemm_dev_$b --iters 40 --filter wgmma --shapes "$shapes" > $O/$b.$r.log 2>&1
  echo "$b.$r rc=$? $(( $(date +%s) - s )) s; FAIL/WRONG lines: $(grep -cE " FAIL | WRONG " $O/$b.$r.log); $(grep "wrong results" $O/$b.$r.log)"
done; done
cp docs/perf/data/gemm_2026-12-01_s50/abab.py $O/
python3 $O/abab.py $O/base.1.log,$O/base.2.log $O/v11.1.log,$O/v11.2.log | grep -E "geomean|n="
tar czf $OUT/s52c9.tgz --exclude='gemm_dev_*' -C /tmp s52c9
