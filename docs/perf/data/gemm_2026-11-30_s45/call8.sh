#!/usr/bin/env bash
# Session 45, call 8 (issue #13, what holds a second token on the CUDA cores): ncu (clocks not locked) of `gemm_dev`
# built from 743f035 + gemvhs_staged_withdrawn.diff (.carryab/gemm_dev.xz, not committed) at M = 1, 1 x 7168 x 16384
# (117 MB, a long stream): the register-ring `gemvh` tile 1, and the staged kernel at tiles 1 and 2 (same geometry, 8
# rows a warp, 16 warps, one chunk in flight). The tile-2 kernel skips the second token's products at M = 1 but still
# converts its activations; it took 55 us against 27 (call 1). Speed of light, warp states, pipes, instruction mix.
set -u
O=/tmp/s45n; mkdir -p .carry $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
xz -dc .carryab/gemm_dev.xz > .carry/gemm_dev.dev; chmod +x .carry/gemm_dev.dev
NCU=/usr/local/cuda/bin/ncu
run() {  # name, shape, gemm_dev filter
  timeout 150 $NCU --clock-control none -k regex:gemv_kernel -c 1 --section SpeedOfLight --section WarpStateStats \
    --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats --section InstructionStats \
    --section SchedulerStats --section MemoryWorkloadAnalysis \
    .carry/gemm_dev.dev --iters 3 --no-blaslt --shapes "$2" --filter "$3" > $O/$1.txt 2>&1
  echo "== $1 rc=$?"
  grep -E "Duration|DRAM Throughput|Compute \(SM\) Throughput|Issue Slots Busy|Executed Ipc Active|Warp Cycles Per Issued|Achieved Occupancy|Registers Per|Executed Instructions  |Pipe|highest-utilized|stall" $O/$1.txt | awk '{$1=$1};1' | head -16
}
run gemvh_t1 1,7168,16384 gemvh_m1_n8_k512_st1_w16
run gemvhs_t1 1,7168,16384 gemvhs_m1_n8_k512_st1_w16
run gemvhs_t2 1,7168,16384 gemvhs_m2_n8_k512_st1_w16
timeout 150 $NCU --clock-control none -k regex:gemv_kernel -c 1 --section SourceCounters --page source --csv \
  --print-source sass .carry/gemm_dev.dev --iters 3 --no-blaslt --shapes 1,7168,16384 --filter gemvhs_m2_n8_k512_st1_w16 \
  > $O/gemvhs_t2_sass.csv 2>&1
echo "sass rc=$? $(wc -l < $O/gemvhs_t2_sass.csv) lines"
tar czf $OUT/s45n.tgz -C /tmp s45n
