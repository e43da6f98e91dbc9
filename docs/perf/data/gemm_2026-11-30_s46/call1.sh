#!/usr/bin/env bash
# Session 46, call 1 (issue #13, decode at M = 2 and 4): session 45's NEXT item 2. The token-tile-2 and -4 `gemvh`
# rows of session 44 held to 64 registers by __launch_bounds__(512, 2) (st = ring * 10 + min blocks: st12, 208 / 620
# bytes spilled), and forms that keep a whole CTA's K in flight at one CTA an SM ((2|4, 16 rows, 16 warps, ring 2),
# st21) or two ((2, 8, 8, 2), st22), beside every table row. gemm_dev with 5 interleaved rounds of every instance
# within 35% of the best. .carryab/gemm_dev.xz (scripts/gpu_dev_build.sh of HEAD + call1_gemv_minblocks_withdrawn.diff).
set -u
O=/tmp/s46c1; mkdir -p .carry $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
xz -dc .carryab/gemm_dev.xz > .carry/gemm_dev; chmod +x .carry/gemm_dev
shapes=""
for nk in 2112,7168 4096,7168 24576,1536 32768,512 7168,16384 7168,2048; do
  for m in 1 2 4; do shapes+="$m,$nk;"; done
done
s=$(date +%s)
timeout -s KILL 420 .carry/gemm_dev --iters 60 --rounds 5 --near 1.35 --shapes "${shapes%;}" --csv $O/r.csv > $O/r.log 2>&1
echo "rc=$? $(( $(date +%s) - s )) s; FAIL lines: $(grep -c " FAIL " $O/r.log)"; grep "wrong results" $O/r.log
python3 docs/perf/data/gemm_2026-11-30_s45/ilv_summary.py $O/r.log | tee $O/summary.txt
grep -E "^==|\[ilv\] .*(calib\] stream|gemvh_m[24]_|mmad_m8_n16_k128_st8_w8)|^  gemvh_m[24]_" $O/r.log > $O/dev_rows.txt; cat $O/dev_rows.txt
tar czf $OUT/s46c1.tgz -C /tmp s46c1
