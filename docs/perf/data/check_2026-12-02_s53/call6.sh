#!/usr/bin/env bash
# Session 53, call 6 (issue #13): the kept form (fin = HEAD + the kept commit: t4's boxes a group with an instance of the
# kernel without them where the maps cannot be made, KB % 4 != 0) against base, ABAB on the 14 shapes, then ragged
# M/N/K, K = 1664 and 2304 (KB 13 and 18: the fallback instances) among them.
set -u
O=/tmp/c6; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
for b in base fin; do xz -dc .carryz/dev/gemm_dev_$b.xz > $O/gemm_dev_$b; chmod +x $O/gemm_dev_$b; done
shapes="256,7168,2048;512,7168,16384;1024,4096,7168;2048,2112,7168;4096,7168,2048;4096,2112,7168;2048,24576,1536;4096,32768,512;8192,7168,16384"
shapes+=";64,2112,7168;128,4096,7168;256,2112,7168;128,24576,1536;512,4096,7168"
run() {  # tag binary shapes
  s=$(date +%s)
  timeout -s KILL 100 $O/gemm_dev_$2 --iters 40 --filter wgmma --shapes "$3" > $O/$1.log 2>&1
  echo "$1 rc=$? $(( $(date +%s) - s )) s; FAIL/WRONG lines: $(grep -cE " FAIL | WRONG " $O/$1.log); $(grep "wrong results" $O/$1.log)"
}
for r in 1 2; do for b in base fin; do run $b.$r $b "$shapes"; done; done
for r in 1 2; do for b in base fin; do run rk_$b.$r $b "64,2112,1664;512,4096,1664;2048,7168,1664;1000,7000,2048;2500,2112,7168;4096,7168,2304;8192,7168,2304"; done; done
for b in fin; do echo "== $b / base"; python3 docs/perf/data/gemm_2026-12-01_s50/abab.py $O/base.1.log,$O/base.2.log $O/$b.1.log,$O/$b.2.log | grep -E "geomean|n="; done
for b in fin; do echo "== ragged, $b / base"; python3 docs/perf/data/gemm_2026-12-01_s50/abab.py $O/rk_base.1.log,$O/rk_base.2.log $O/rk_$b.1.log,$O/rk_$b.2.log | grep -E "geomean|n="; done
tar czf $OUT/c6.tgz --exclude='gemm_dev_*' -C /tmp c6
