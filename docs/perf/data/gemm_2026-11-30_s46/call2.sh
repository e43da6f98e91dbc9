#!/usr/bin/env bash
# Session 46, call 2 (issue #13, decode at M = 2...8): `gemvh` taking the tokens one after the other over the weights
# it holds in registers (gemv_loop_kernel, DEV rows named st9; call2_gemv_token_loop_withdrawn.diff): each warp loads at most one
# 512-byte chunk of its 8 rows, then forms, reduces and parks one token's 8 sums at a time, so every token count runs
# at tile 1's registers (57-61, two 512-thread CTAs an SM) where session 44's token tiles took 96-126. Only K <= WK*512,
# so the grid's (N, K) but 7168 x 16384, at M = 1, 2, 4, 8. gemm_dev with 5 interleaved rounds within 35% of the best.
set -u
O=/tmp/s46c2; mkdir -p .carry $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
xz -dc .carryab/gemm_dev.xz > .carry/gemm_dev; chmod +x .carry/gemm_dev
shapes=""
for nk in 2112,7168 4096,7168 24576,1536 32768,512 7168,2048; do
  for m in 1 2 4 8; do shapes+="$m,$nk;"; done
done
s=$(date +%s)
timeout -s KILL 420 .carry/gemm_dev --iters 60 --rounds 5 --near 1.35 --shapes "${shapes%;}" --csv $O/r.csv > $O/r.log 2>&1
echo "rc=$? $(( $(date +%s) - s )) s; FAIL lines: $(grep -c " FAIL " $O/r.log)"; grep "wrong results" $O/r.log
python3 docs/perf/data/gemm_2026-11-30_s45/ilv_summary.py $O/r.log | tee $O/summary.txt
grep -E "^==|\[ilv\] .*(calib\] stream|_st9_|mmad_m8_n16_k128_st8_w8|gemvh_m1_n8_k512_st1_w16)|^  gemvh_m[248]_.*_st9_" $O/r.log > $O/dev_rows.txt
tar czf $OUT/s46c2.tgz -C /tmp s46c2
