#!/usr/bin/env bash
# Session 44, call 6 (issue #13, decode at M = 2...8): EXPERIMENT. gemm_dev of HEAD (.carryab/gemm_dev_base.xz) and of
# HEAD + gemvt.diff (.carryab/gemm_dev.xz: gemvh widening its f16 sums with integer operations instead of cvt.f32.f16,
# and `gemvh` rows with token tiles of 2 and 4, 8 / TM weight rows a warp), each on the grid's six (N, K) at
# M = 1, 2, 4, 8: every block-scale instance verified and timed against one streaming read of the weights.
set -u
O=/tmp/s44g; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
mkdir -p .carry
shapes=""
for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 1 2 4 8; do shapes+="$m,$nk;"; done
done
for b in gemm_dev_base gemm_dev; do
  xz -dc .carryab/$b.xz > .carry/$b; chmod +x .carry/$b
  s=$(date +%s)
  timeout -s KILL 250 .carry/$b --iters 60 --shapes "${shapes%;}" --csv $O/$b.csv > $O/$b.log 2>&1
  echo "$b rc=$? $(( $(date +%s) - s )) s; FAIL lines: $(grep -c " FAIL " $O/$b.log)"; grep "wrong results" $O/$b.log
  python3 docs/perf/data/gemm_2026-11-29_s26/decode_summary.py $O/$b.log gemv
done
(cd /tmp && tar czf "$OUT/s44g.tgz" s44g)
