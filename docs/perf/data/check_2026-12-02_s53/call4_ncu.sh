#!/usr/bin/env bash
# Session 53, call 4: why the persistent rows with their block scales landed by TMA (tsp) lose in the paired form.
# ncu (full set) on one launch of two paired rows, base (HEAD's kernels) against tsp, at 4096 x 7168 x 2048.
set -u
O=/tmp/n4; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid --format=csv,noheader
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
for b in base tsp; do xz -dc .carryz/dev/gemm_dev_$b.xz > $O/gemm_dev_$b; chmod +x $O/gemm_dev_$b; done
for b in base tsp; do for inst in wgmmap2_m128_n128_k128_st4_w12 wgmmap2_m128_n64_k128_st6_w12; do
  s=$(date +%s)
  timeout -s KILL 150 $NCU --set full --import-source no -k regex:persistent --launch-skip 3 --launch-count 1 \
    -o $O/${b}_$inst $O/gemm_dev_$b --iters 5 --filter $inst --shapes 4096,7168,2048 > $O/${b}_$inst.txt 2>&1
  echo "$b $inst rc=$? $(( $(date +%s) - s )) s"
  $NCU -i $O/${b}_$inst.ncu-rep --page details > $O/${b}_$inst.details.txt 2>&1
  $NCU -i $O/${b}_$inst.ncu-rep --page raw --csv > $O/${b}_$inst.raw.csv 2>&1
done; done
rm -f $O/gemm_dev_*
tar czf $OUT/n4.tgz -C /tmp n4
