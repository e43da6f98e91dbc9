#!/usr/bin/env bash
# Session 49, call 1 (issue #13, decode at M = 16...128): gemm_dev of HEAD (base) against HEAD + (a) the wgmma kernels'
# block scales loaded with gpu::load_early where they are written (before the stage's wait) and (b) eight split-K grid
# rows compiled for two CTAs an SM (WgCfg MINB = 2, CKTUNE_WGMMA_2CTA_ROWS), so that 33 tiles' clusters of 4 are
# resident at once. Every wgmma-family instance of the block table, verified, base then new.
set -u
O=/tmp/s49c1; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
for b in base new; do xz -dc .carry/gemm_dev_$b.xz > $O/gemm_dev_$b; chmod +x $O/gemm_dev_$b; done
shapes=""
for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 16 32 64 128 256; do shapes+="$m,$nk;"; done
done
shapes+="2048,2112,7168;4096,7168,2048;512,7168,16384"
for b in base new; do
  s=$(date +%s)
  timeout -s KILL 270 $O/gemm_dev_$b --iters 60 --filter wgmma --shapes "$shapes" > $O/$b.log 2>&1
  echo "$b rc=$? $(( $(date +%s) - s )) s; FAIL lines: $(grep -c " FAIL " $O/$b.log); $(grep "wrong results" $O/$b.log)"
done
tar czf $OUT/s49c1.tgz --exclude=gemm_dev_base --exclude=gemm_dev_new -C /tmp s49c1
