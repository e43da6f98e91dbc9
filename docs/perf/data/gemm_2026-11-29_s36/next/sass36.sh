#!/usr/bin/env bash
# Session 36 (prepared, not run): does the warp-uniform warpgroup index (7238d8f) do what it was made for? ncu's source
# page (SASS with per-instruction execution counts) of one launch of `wgmmap2_m128_n128_k128_st4_w12_sk1` at
# 8192 x 7168 x 16384 from the gemm_dev builds before and after it (.carryab/gemm_dev_{base,new}.xz, as gab36.sh), then
# opcount36.py: warp instructions executed by opcode. Predicted: R2UR down by about two per wgmma (the A and B
# descriptors), per-thread integer arithmetic (IADD3, IMAD, LOP3) down, UIADD3 up; QGMMA and FFMA unchanged.
set -u
O=/tmp/sass36; mkdir -p $O .carry
for v in base new; do xz -dc .carryab/gemm_dev_$v.xz > .carry/gemm_dev_$v; chmod +x .carry/gemm_dev_$v; done
NCU=/usr/local/cuda/bin/ncu
for v in base new; do
  timeout 200 $NCU --clock-control none -k regex:wgmma_persistent -c 1 --section SourceCounters --section SpeedOfLight \
    --import-source no -o $O/$v .carry/gemm_dev_$v --iters 1 --no-blaslt --filter wgmmap2_m128_n128_k128_st4_w12_sk1 \
    --shapes 8192,7168,16384 > $O/ncu_$v.txt 2>&1
  echo "ncu $v rc=$?"
  $NCU --import $O/$v.ncu-rep --page source --csv --print-source sass > $O/${v}_sass.csv 2> $O/${v}_sass.err
  $NCU --import $O/$v.ncu-rep --page details > $O/${v}_details.txt 2>&1
  grep -E "Duration|SM Frequency" $O/${v}_details.txt | head -3
done
python3 docs/perf/data/gemm_2026-11-29_s36/next/opcount36.py $O/base_sass.csv $O/new_sass.csv | tee $O/opcount.txt
tar czf $OUT/sass36.tgz -C /tmp sass36
