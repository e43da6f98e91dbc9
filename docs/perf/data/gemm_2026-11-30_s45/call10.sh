#!/usr/bin/env bash
# Session 45, call 10 (issue #13, decode vs the stream read, timed fairly): gemm_dev of 743f035's kernels with
# --rounds (the stream read and every passed instance within 15% of the best re-timed in 5 interleaved rounds, each
# round in a rotated order), the grid's six (N, K) at M = 1, 2, 4, 8. ilv_summary.py: best / stream read from the first
# pass (as sessions 26-44 measured it) and from the rounds. .carryab/gemm_dev.xz (built by scripts/gpu_dev_build.sh).
set -u
O=/tmp/s45r; mkdir -p .carry $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
xz -dc .carryab/gemm_dev.xz > .carry/gemm_dev; chmod +x .carry/gemm_dev
shapes=""
for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 1 2 4 8; do shapes+="$m,$nk;"; done
done
s=$(date +%s)
timeout -s KILL 400 .carry/gemm_dev --iters 60 --rounds 5 --near 1.15 --shapes "${shapes%;}" --csv $O/r.csv > $O/r.log 2>&1
echo "rc=$? $(( $(date +%s) - s )) s; FAIL lines: $(grep -c " FAIL " $O/r.log)"; grep "wrong results" $O/r.log
python3 docs/perf/data/gemm_2026-11-30_s45/ilv_summary.py $O/r.log | tee $O/summary.txt
tar czf $OUT/s45r.tgz -C /tmp s45r
