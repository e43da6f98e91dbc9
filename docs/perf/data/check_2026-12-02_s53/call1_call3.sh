#!/usr/bin/env bash
# Session 53 ran it as call 1 (the prepared diffs as they were: both failed their first launch) and as call 3 (with
# the boxes started at a multiple of 4 k-blocks: call3_*.diff).
# Prepared in session 52 for the next session (issue #13; NEXT.md item 1), not yet run. Before the call, here:
#   git worktree add /tmp/wt_tsp HEAD && cd /tmp/wt_tsp && git apply <s52>/next_tma_scales_persistent_prepared.diff
#   git worktree add /tmp/wt_tsa HEAD && cd /tmp/wt_tsa && git apply <s52>/next_tma_scales_grid_and_persistent_prepared.diff
#   in each, and in a worktree at HEAD: bash scripts/gpu_dev_build.sh, then
#   xz -T2 -3 -c .carry/gemm_dev > /work/main/.carryz/dev/gemm_dev_{base,tsp,tsa}.xz
# and carry .carryz/dev (the rest of docs/perf/data moved aside for the transfer, but gemm_2026-12-01_s50/abab.py kept).
# ABAB base/tsp/tsa on session 52's 14
# shapes, every instance verified; then base/tsa once more on K = 1536 + 128 (KB % 4 != 0: the grid rows fall back to
# the scale warp, the persistent TMA rows are refused by why_not) to check the fallback is base's speed.
set -u
O=/tmp/next; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
for b in base tsp tsa; do xz -dc .carryz/dev/gemm_dev_$b.xz > $O/gemm_dev_$b; chmod +x $O/gemm_dev_$b; done
shapes="256,7168,2048;512,7168,16384;1024,4096,7168;2048,2112,7168;4096,7168,2048;4096,2112,7168;2048,24576,1536;4096,32768,512;8192,7168,16384"
shapes+=";64,2112,7168;128,4096,7168;256,2112,7168;128,24576,1536;512,4096,7168"
run() {  # tag binary shapes
  s=$(date +%s)
  timeout -s KILL 100 $O/gemm_dev_$2 --iters 40 --filter wgmma --shapes "$3" > $O/$1.log 2>&1
  echo "$1 rc=$? $(( $(date +%s) - s )) s; FAIL/WRONG lines: $(grep -cE " FAIL | WRONG " $O/$1.log); $(grep "wrong results" $O/$1.log)"
}
for r in 1 2; do for b in base tsp tsa; do run $b.$r $b "$shapes"; done; done
for r in 1 2; do for b in base tsa; do run rk_$b.$r $b "64,2112,1664;512,4096,1664;2048,7168,1664"; done; done
for b in tsp tsa; do echo "== $b / base"; python3 docs/perf/data/gemm_2026-12-01_s50/abab.py $O/base.1.log,$O/base.2.log $O/$b.1.log,$O/$b.2.log | grep -E "geomean|n="; done
echo "== ragged K, tsa / base"; python3 docs/perf/data/gemm_2026-12-01_s50/abab.py $O/rk_base.1.log,$O/rk_base.2.log $O/rk_tsa.1.log,$O/rk_tsa.2.log | grep -E "geomean|n="
tar czf $OUT/next.tgz --exclude='gemm_dev_*' -C /tmp next
