#!/usr/bin/env bash
# Session 53, call 8 (issue #13; NEXT.md item 1): the 128 x 128 x 6 persistent rows' scales by TMA through one box
# slot (s6 = 13c6045 + call8_s6_one_scale_slot_withdrawn.diff: the slot fits once the 1 KB alignment slack goes; the producer
# lands a group's box only after the stage where the previous one landed is released). ABAB fin (13c6045) / s6 over
# the persistent rows (--filter wgmmap) on 10 shapes, then ragged M/N/K (333 x 576 x 2048, 1100 x 2112 x 1024 from the
# GPU tests; 8192 x 7168 x 2304 on the fallback), every instance verified.
set -u
O=/tmp/c8; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
for b in fin s6; do xz -dc .carryz/dev/gemm_dev_$b.xz > $O/gemm_dev_$b; chmod +x $O/gemm_dev_$b; done
shapes="256,7168,2048;512,7168,16384;1024,4096,7168;2048,2112,7168;4096,7168,2048;4096,2112,7168;2048,24576,1536;4096,32768,512;8192,7168,16384;512,4096,7168"
ragged="1000,7000,2048;2500,2112,7168;333,576,2048;1100,2112,1024;8192,7168,2304"
run() {  # tag binary shapes
  s=$(date +%s)
  timeout -s KILL 60 $O/gemm_dev_$2 --iters 40 --filter wgmmap --shapes "$3" > $O/$1.log 2>&1
  echo "$1 rc=$? $(( $(date +%s) - s )) s; FAIL/WRONG lines: $(grep -cE " FAIL | WRONG " $O/$1.log); $(grep "wrong results" $O/$1.log)"
}
for r in 1 2; do for b in fin s6; do run $b.$r $b "$shapes"; done; done
for r in 1 2; do for b in fin s6; do run rk_$b.$r $b "$ragged"; done; done
echo "== s6 / fin"; python3 docs/perf/data/gemm_2026-12-01_s50/abab.py $O/fin.1.log,$O/fin.2.log $O/s6.1.log,$O/s6.2.log | grep -E "geomean|n="
echo "== ragged, s6 / fin"; python3 docs/perf/data/gemm_2026-12-01_s50/abab.py $O/rk_fin.1.log,$O/rk_fin.2.log $O/rk_s6.1.log,$O/rk_s6.2.log | grep -E "geomean|n="
tar czf $OUT/c8.tgz --exclude='gemm_dev_*' -C /tmp c8
