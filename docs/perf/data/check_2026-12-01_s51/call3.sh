#!/usr/bin/env bash
# Session 51, call 3 (issue #13): the block scales loaded after the wgmma they scale are issued
# Call 2's probe without scale loads ran the grid kernel's plain-loop rows 7-16% faster, and loading each block's
# scales a loop pass ahead 1-5% slower: the loads seem to hold the wgmma issued after them. af = the grid kernel's plain
# loop loads a block's scales (gpu::load_early) after issuing its wgmma, before waiting for them; af2 = the same, and the
# paired-block rows (promote_in_turns: grid and persistent kernels) and the persistent kernel's plain loop likewise.
# ABAB base / af / af2 over call 2's shapes, the wgmma-family instances, every one verified (0 wrong).
set -u
O=/tmp/s51c3; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
for b in base af af2; do xz -dc .carryz/dev/gemm_dev_s51$b.xz > $O/gemm_dev_$b; chmod +x $O/gemm_dev_$b; done
shapes=""
for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 16 32 64 128 256; do shapes+="$m,$nk;"; done
done
shapes+="2048,2112,7168;4096,7168,2048;512,7168,16384;4096,2112,7168;1024,4096,7168"
for r in 1 2; do for b in base af af2; do
  s=$(date +%s)
  timeout -s KILL 130 $O/gemm_dev_$b --iters 60 --filter wgmma --shapes "$shapes" > $O/$b.$r.log 2>&1
  echo "$b.$r rc=$? $(( $(date +%s) - s )) s; FAIL/WRONG lines: $(grep -cE " FAIL | WRONG " $O/$b.$r.log); $(grep "wrong results" $O/$b.$r.log)"
done; done
tar czf $OUT/s51c3.tgz --exclude='gemm_dev_*' -C /tmp s51c3
