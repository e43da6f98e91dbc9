#!/usr/bin/env bash
# Session 45, call 1 (issue #13, decode at M = 1...8): EXPERIMENT. gemm_dev of HEAD + the staged CUDA-core decode rows
# (`gemvhs`: gemvh with its chunks in flight in shared memory by cp.async, token tiles 1, 2, 4, 8), on the grid's six
# (N, K) at M = 1, 2, 4, 8, two rounds: every block-scale instance verified and timed against one streaming read of the
# weights, in the same run.
set -u
O=/tmp/s45a; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
mkdir -p .carry
shapes=""
for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 1 2 4 8; do shapes+="$m,$nk;"; done
done
xz -dc .carryab/gemm_dev.xz > .carry/gemm_dev; chmod +x .carry/gemm_dev
for r in 1 2; do
  s=$(date +%s)
  timeout -s KILL 200 .carry/gemm_dev --iters 60 --shapes "${shapes%;}" --csv $O/r$r.csv > $O/r$r.log 2>&1
  echo "round $r rc=$? $(( $(date +%s) - s )) s; FAIL lines: $(grep -c " FAIL " $O/r$r.log)"; grep "wrong results" $O/r$r.log
  python3 docs/perf/data/gemm_2026-11-29_s26/decode_summary.py $O/r$r.log gemvhs > $O/r$r.summary.txt
  cat $O/r$r.summary.txt
done
(cd /tmp && tar czf "$OUT/s45a.tgz" s45a)
