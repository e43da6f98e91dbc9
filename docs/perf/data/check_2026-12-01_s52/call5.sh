#!/usr/bin/env bash
# Session 52, call 5 (issue #13; a new context: call 4's files were lost with the machine, only its summary lines were
# kept, CALLS.md). v7a = every block-scale kernel's scales staged (call 1's design) with the scale warp's copies
# unrolled over one 32-bit offset stepped by 32 rows, a row past M skipped (no wgmma kernel spills; call 4's v5 still
# spilled in the split-tail kernel); the 128 x 128 x 6 persistent rows have three side slots. v8 = v7a with the
# persistent kernel's 1 KB alignment slack dropped (its dynamic shared memory declared 1024-byte aligned, checked),
# which gives those rows five slots: does the slot count (how far ahead the scale warp may copy) hold them?
# ABAB base/v7a/v8, call 1's 14 shapes, filter wgmma; every instance verified before it is timed.
set -u
O=/tmp/s52c5; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
for b in base v7a v8; do
  xz -dc .carryz/dev/gemm_dev_$b.xz > $O/gemm_dev_$b; chmod +x $O/gemm_dev_$b
done
shapes="256,7168,2048;512,7168,16384;1024,4096,7168;2048,2112,7168;4096,7168,2048;4096,2112,7168;2048,24576,1536;4096,32768,512;8192,7168,16384"
shapes+=";64,2112,7168;128,4096,7168;256,2112,7168;128,24576,1536;512,4096,7168"
for r in 1 2; do for b in base v7a v8; do
  s=$(date +%s)
  timeout -s KILL 150 $O/gemm_dev_$b --iters 40 --filter wgmma --shapes "$shapes" > $O/$b.$r.log 2>&1
  echo "$b.$r rc=$? $(( $(date +%s) - s )) s; FAIL/WRONG lines: $(grep -cE " FAIL | WRONG " $O/$b.$r.log); $(grep "wrong results" $O/$b.$r.log)"
done; done
cp docs/perf/data/gemm_2026-12-01_s50/abab.py $O/
for b in v7a v8; do echo "== $b / base"; python3 $O/abab.py $O/base.1.log,$O/base.2.log $O/$b.1.log,$O/$b.2.log | grep -E "geomean|n="; done
tar czf $OUT/s52c5.tgz --exclude='gemm_dev_*' -C /tmp s52c5
