#!/usr/bin/env bash
# Session 54, call 4 (issue #13): the last M tile's x box with only the rows it holds, through a second tensor map
# (xt: HEAD + call4_x_tail_map.diff; generalises call 3's xb, which cut the box only where M is shorter than the tile)
# against base (HEAD), gemm_dev ABAB over --filter wgmma: call 3's decode set, then ragged M with several M tiles
# (the last one partial), then full-tile prefill shapes as the control.
set -u
O=/tmp/c4; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
for b in base xt; do xz -dc .carryz/dev/gemm_dev_$b.xz > $O/gemm_dev_$b; chmod +x $O/gemm_dev_$b; done
shapes=""
for m in 4 16 32 48; do for nk in 2112,7168 4096,7168 7168,2048 24576,1536; do shapes+="$m,$nk;"; done; done
shapes+="64,2112,7168;64,4096,7168"
rg="100,2112,7168;80,4096,7168;200,7168,2048;65,2112,7168;127,4096,7168;300,24576,1536;20,32768,512;24,7168,16384;1000,7000,2048;2500,2112,7168"
full="4096,7168,2048;256,7168,2048;1024,4096,7168;128,24576,1536"
run() {  # tag binary shapes
  s=$(date +%s)
  timeout -s KILL 150 $O/gemm_dev_$2 --iters 40 --filter wgmma --shapes "$3" > $O/$1.log 2>&1
  echo "$1 rc=$? $(( $(date +%s) - s )) s; FAIL/WRONG lines: $(grep -cE " FAIL | WRONG " $O/$1.log); $(grep "wrong results" $O/$1.log)"
}
for set in dec rg full; do
  eval list=\$$([ $set = dec ] && echo shapes || echo $set)
  for r in 1 2; do for b in base xt; do run ${set}_$b.$r $b "$list"; done; done
  echo "== $set: xt / base"; python3 docs/perf/data/gemm_2026-12-01_s50/abab.py $O/${set}_base.1.log,$O/${set}_base.2.log $O/${set}_xt.1.log,$O/${set}_xt.2.log
done
tar czf $OUT/c4.tgz --exclude='gemm_dev_*' -C /tmp c4
