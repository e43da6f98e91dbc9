#!/usr/bin/env bash
# Session 53, call 5 (issue #13): block scales four k-blocks at a time. g4 = HEAD + call5_g4_group_scales_global_withdrawn.diff (16-byte global loads of
# each row's group of 4 k-blocks in the paired and persistent loops); t4 = tsp (call 3) + call5_t4_tma_scales_groups.diff (the TMA boxes with a
# group's first stage only, read as 16-byte groups). ABAB base/g4/t4 on session 52's 14 shapes, then ragged M/N/K.
set -u
O=/tmp/c4; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
for b in base g4 t4; do xz -dc .carryz/dev/gemm_dev_$b.xz > $O/gemm_dev_$b; chmod +x $O/gemm_dev_$b; done
shapes="256,7168,2048;512,7168,16384;1024,4096,7168;2048,2112,7168;4096,7168,2048;4096,2112,7168;2048,24576,1536;4096,32768,512;8192,7168,16384"
shapes+=";64,2112,7168;128,4096,7168;256,2112,7168;128,24576,1536;512,4096,7168"
run() {  # tag binary shapes
  s=$(date +%s)
  timeout -s KILL 100 $O/gemm_dev_$2 --iters 40 --filter wgmma --shapes "$3" > $O/$1.log 2>&1
  echo "$1 rc=$? $(( $(date +%s) - s )) s; FAIL/WRONG lines: $(grep -cE " FAIL | WRONG " $O/$1.log); $(grep "wrong results" $O/$1.log)"
}
for r in 1 2; do for b in base g4 t4; do run $b.$r $b "$shapes"; done; done
for r in 1 2; do for b in base g4 t4; do run rk_$b.$r $b "64,2112,1664;512,4096,1664;2048,7168,1664;1000,7000,2048;2500,2112,7168"; done; done
for b in g4 t4; do echo "== $b / base"; python3 docs/perf/data/gemm_2026-12-01_s50/abab.py $O/base.1.log,$O/base.2.log $O/$b.1.log,$O/$b.2.log | grep -E "geomean|n="; done
for b in g4 t4; do echo "== ragged, $b / base"; python3 docs/perf/data/gemm_2026-12-01_s50/abab.py $O/rk_base.1.log,$O/rk_base.2.log $O/rk_$b.1.log,$O/rk_$b.2.log | grep -E "geomean|n="; done
tar czf $OUT/c4.tgz --exclude='gemm_dev_*' -C /tmp c4
