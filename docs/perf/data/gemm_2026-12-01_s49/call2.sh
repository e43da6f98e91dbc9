#!/usr/bin/env bash
# Session 49, call 2 (issue #13, decode at M = 32...128): Nsight Compute (clocks not locked) at 64 x 2112 x 7168 of the
# calibration stream read, the new two-CTA split-K row (wgmma_m64_n64_k128_st4_w8_sk4), the k-group row that wins there
# today (wgmmak_m64_n64_k128_st8_w20_sk1) and, at 8 x 2112 x 7168, the register-fed mmad row: where a 15 MB decode GEMM
# spends the 5-6 us it takes beyond one read of its weights. gemm_dev of call 1's "new" build.
set -u
O=/tmp/s49c2; mkdir -p $O
nvidia-smi --query-gpu=name,pci.bus_id,uuid,clocks.sm,temperature.gpu --format=csv,noheader
xz -dc .carry/gemm_dev_new.xz > $O/gemm_dev; chmod +x $O/gemm_dev
NCU=/usr/local/cuda/bin/ncu
run() {  # run <label> <kernel regex> <gemm_dev filter> <shape>
  timeout 110 $NCU --clock-control none -k "regex:$2" -s 2 -c 1 --section SpeedOfLight --section WarpStateStats \
    --section SchedulerStats --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
    --section SourceCounters $O/gemm_dev --iters 4 --shapes "$4" --filter "$3" --no-blaslt > $O/$1.txt 2>&1
  echo "== $1 rc=$?"
  grep -E "Duration|DRAM Throughput|Memory Throughput|Compute \(SM\)|L2 Cache Throughput|SM Frequency|Stall|Warp Cycles Per Issued|Achieved Occupancy|Waves Per SM|Registers Per" $O/$1.txt | awk '{$1=$1};1' | head -24
}
run stream stream_read no_such_instance 64,2112,7168
run sk4_2cta wgmma_kernel wgmma_m64_n64_k128_st4_w8_sk4 64,2112,7168
run wgmmak_w20 wgmma_kernel wgmmak_m64_n64_k128_st8_w20_sk1 64,2112,7168
run mmad_m8 mma_direct mmad_m8_n16_k128_st8_w8 8,2112,7168
tar czf $OUT/s49c2.tgz --exclude=gemm_dev -C /tmp s49c2
