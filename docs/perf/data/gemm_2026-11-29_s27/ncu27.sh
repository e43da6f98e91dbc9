#!/usr/bin/env bash
# Session 27: ncu (clocks not locked) of decode at 2112 x 7168, M = 1 and 2: the stream-read calibration, `gemvh` (M = 1),
# `mmad` 8 warps ring 8 (M = 1 and 2): speed of light, warp states and the pipes, to see what a second token costs.
# On the GPU machine with .carryab/gemm_dev.xz carried.
set -u
mkdir -p .carry /tmp/nc27; xz -dc .carryab/gemm_dev.xz > .carry/gemm_dev.dev; chmod +x .carry/gemm_dev.dev
NCU=/usr/local/cuda/bin/ncu
run() {  # name, shape, gemm_dev filter, kernel regex
  timeout 150 $NCU --clock-control none -k "$4" -c 1 --section SpeedOfLight --section WarpStateStats \
    --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats \
    .carry/gemm_dev.dev --iters 3 --no-blaslt --shapes "$2" --filter "$3" > /tmp/nc27/$1.txt 2>&1
  echo "== $1 rc=$?"
  grep -E "Duration|DRAM Throughput|Memory Throughput|Compute \(SM\) Throughput|Issue Slots Busy|Executed Ipc Active|Warp Cycles Per Issued|Achieved Occupancy|Registers Per|Grid Size|Block Size|Stall|stall" /tmp/nc27/$1.txt | awk '{$1=$1};1' | head -20
}
run stream_m1 1,2112,7168 stream_read stream_read
run gemvh_m1 1,2112,7168 gemvh_m1_n8_k512_st1_w16 regex:gemv_kernel
run mmad_m1 1,2112,7168 mmad_m8_n16_k128_st8_w8 regex:mma_direct
run mmad_m2 2,2112,7168 mmad_m8_n16_k128_st8_w8 regex:mma_direct
run mmad_m8 8,2112,7168 mmad_m8_n16_k128_st8_w8 regex:mma_direct
tar czf $OUT/nc27.tgz -C /tmp nc27
