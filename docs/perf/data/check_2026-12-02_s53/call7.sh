#!/usr/bin/env bash
# Session 53, call 7 (issue #13): the kept commit's binaries. (1) ncu on call 4's paired 128 x 128 x 4 row, base, tsp
# (a box a k-block) and fin (the kept form), with the per-instruction stall samples. (2) scripts/gpu_grid.sh 1: the GPU tests
# (every block-scale instance on ragged shapes, both the TMA-scale instances and their fallbacks) and the 48-shape
# grid's bench / tune / bench / compare.
set -u
bash scripts/unpack_carry.sh > /dev/null
O=/tmp/n7; mkdir -p $O
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
for b in base tsp fin; do xz -dc .carryz/dev/gemm_dev_$b.xz > $O/gemm_dev_$b; chmod +x $O/gemm_dev_$b; done
# Per-instruction stall samples (SASS, --page source): which instructions the box-a-k-block form's added
# short-scoreboard stalls sit on (the consumers' shared loads of the scales, or their full-barrier waits), and fin's.
inst=wgmmap2_m128_n128_k128_st4_w12
for b in base tsp fin; do
  timeout -s KILL 100 $NCU --set full --import-source no -k regex:persistent --launch-skip 3 --launch-count 1 \
    -o $O/${b}_$inst $O/gemm_dev_$b --iters 5 --filter $inst --shapes 4096,7168,2048 > $O/${b}_$inst.txt 2>&1
  echo "ncu $b $inst rc=$?"
  $NCU -i $O/${b}_$inst.ncu-rep --page raw --csv > $O/${b}_$inst.raw.csv 2>&1
  $NCU -i $O/${b}_$inst.ncu-rep --page source --csv --print-source sass > $O/${b}_$inst.sass.csv 2> $O/${b}_$inst.sass.err \
    || echo "source page $b rc=$?"
done
rm -f $O/*.ncu-rep $O/gemm_dev_*; tar czf $OUT/n7.tgz -C /tmp n7
bash scripts/gpu_grid.sh 1
