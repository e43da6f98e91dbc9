#!/usr/bin/env bash
# Session 45, call 9 (issue #13): the staged decode kernels' durations launch by launch in `gemm_dev`'s timed loop
# (nsys, kernel by kernel), against the events' medians, at 1 x 7168 x 16384 and M = 1: is call 1's 55 us for the tile-2
# kernel (37 us alone under ncu, call 8) in the kernel or between the launches? Build as call 8 (.carryab/gemm_dev.xz).
set -u
O=/tmp/s45s; mkdir -p .carry $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
xz -dc .carryab/gemm_dev.xz > .carry/gemm_dev.dev; chmod +x .carry/gemm_dev.dev
NSYS=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
echo "nsys: $NSYS"
for f in gemvh_m1_n8_k512_st1_w16 gemvhs_m1_n8_k512_st1_w16 gemvhs_m2_n8_k512_st1_w16; do
  .carry/gemm_dev.dev --iters 30 --no-blaslt --shapes 1,7168,16384 --filter $f 2>&1 | grep -E "^  (gemv|stream)" | tee -a $O/events.txt
  if [ -n "$NSYS" ]; then
    timeout 120 $NSYS profile -t cuda -o $O/$f --force-overwrite true .carry/gemm_dev.dev --iters 30 --no-blaslt \
      --shapes 1,7168,16384 --filter $f > $O/$f.nsys.log 2>&1
    timeout 60 $NSYS stats -r cuda_gpu_trace -f csv -o $O/$f $O/$f.nsys-rep > /dev/null 2>&1
    python3 - "$O/${f}_cuda_gpu_trace.csv" <<'PY'
import csv, sys, statistics
rows = [r for r in csv.DictReader(open(sys.argv[1])) if 'gemv_kernel' in r.get('Name', '')]
d = [float(r['Duration (ns)']) / 1000 for r in rows]
starts = [float(r['Start (ns)']) / 1000 for r in rows]
gaps = [b - (a + x) for a, b, x in zip(starts, starts[1:], d)]
print(f"  nsys {len(d)} launches: duration median {statistics.median(d):.2f} us (min {min(d):.2f}, max {max(d):.2f}); "
      f"gap to the next median {statistics.median(gaps):.2f} us" if d else "  nsys: no kernel rows")
PY
  fi
done
tar czf $OUT/s45s.tgz -C /tmp s45s
