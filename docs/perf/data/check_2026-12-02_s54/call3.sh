#!/usr/bin/env bash
# Session 54, call 3 (issue #13, decode): x's TMA box cut to M rounded up to 8 where the tile is taller than M (xb:
# HEAD + call3_x_box_rows.diff) against base (HEAD), gemm_dev ABAB over --filter wgmma (grid, k-group, paired,
# persistent and swapped-operand rows), M = 4...48 at four (N, K), M = 64 as the control (no change), then a ragged set.
set -u
O=/tmp/c3; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
for b in base xb; do xz -dc .carryz/dev/gemm_dev_$b.xz > $O/gemm_dev_$b; chmod +x $O/gemm_dev_$b; done
shapes=""
for m in 4 16 32 48; do for nk in 2112,7168 4096,7168 7168,2048 24576,1536; do shapes+="$m,$nk;"; done; done
shapes+="64,2112,7168;64,4096,7168"
run() {  # tag binary shapes
  s=$(date +%s)
  timeout -s KILL 120 $O/gemm_dev_$2 --iters 40 --filter wgmma --shapes "$3" > $O/$1.log 2>&1
  echo "$1 rc=$? $(( $(date +%s) - s )) s; FAIL/WRONG lines: $(grep -cE " FAIL | WRONG " $O/$1.log); $(grep "wrong results" $O/$1.log)"
}
for r in 1 2; do for b in base xb; do run $b.$r $b "$shapes"; done; done
rg="13,7168,16384;40,32768,512;100,2112,7168;8,2112,7168;1,4096,7168;27,7168,2048"
for r in 1 2; do for b in base xb; do run rg_$b.$r $b "$rg"; done; done
echo "== xb / base"; python3 docs/perf/data/gemm_2026-12-01_s50/abab.py $O/base.1.log,$O/base.2.log $O/xb.1.log,$O/xb.2.log
echo "== ragged, xb / base"; python3 docs/perf/data/gemm_2026-12-01_s50/abab.py $O/rg_base.1.log,$O/rg_base.2.log $O/rg_xb.1.log,$O/rg_xb.2.log | grep -E "geomean|n="
tar czf $OUT/c3.tgz --exclude='gemm_dev_*' -C /tmp c3
