#!/usr/bin/env bash
# One device call for the prefill kernels (docs/perf/gpu_gemm.md, run 6 on): the persistent wgmma
# instances verified on ragged shapes, then timed against cuBLASLt on the grid's M >= 512 shapes, then
# Nsight Compute on two kernels of one shape (tensor-pipe activity and where the warps stall).
# Runs on the GPU machine from the repository root with .carry/gemm_dev (scripts/gpu_dev_build.sh).
# "decode": Nsight Compute on the best decode kernels of two grid shapes and on the weight-stream
# calibration kernel of the same shapes (how far from the HBM read rate each runs, and why).
# Usage: scripts/gpu_prefill_run.sh [verify|time|ncu|decode ...]   (default: verify time ncu)
set -uo pipefail
cd "$(dirname "$0")/.."
B=.carry/gemm_dev
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
steps=${*:-verify time ncu}
nvidia-smi --query-gpu=name,clocks.sm,power.draw,power.limit,temperature.gpu --format=csv
for s in $steps; do
  case $s in
    verify)
      # Ragged M and N (N = 7000: the last 192-wide tile straddles the last, partial scale block).
      timeout -s KILL 150 "$B" --iters 10 --filter wgmmap --no-blaslt \
        --shapes "333,2112,512;1000,7168,2048;130,4096,7168;4100,7000,7168;2048,576,7168;777,24576,1536" \
        --csv "$OUT/verify.csv" > "$OUT/verify.log" 2>&1
      echo "verify exit: $?"
      grep -ciE "wrong|fail" "$OUT/verify.log"
      grep -iE "wrong|fail" "$OUT/verify.log" | head -10
      ;;
    time)
      shapes=""
      for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
        for m in 512 1024 4096 8192; do shapes+="$m,$nk;"; done
      done
      timeout -s KILL 300 "$B" --iters 40 --filter wgmmap --shapes "${shapes%;}" --csv "$OUT/prefill.csv" \
        > "$OUT/prefill.log" 2>&1
      echo "time exit: $?"
      sed -n '/^shape(M,N,K)/,$p' "$OUT/prefill.log" | tail -40
      ;;
    ncu)
      for k in wgmmap2_m128_n128_k128_st4 wgmmapo_m128_n128_k128_st4 wgmmapo_m128_n192_k128_st4; do
        timeout -s KILL 120 ncu --clock-control none --kernel-name regex:persistent --launch-skip 3 --launch-count 1 \
          --section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis \
          --metrics sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__cycles_active.avg \
          "$B" --iters 5 --no-blaslt --filter "$k" --shapes "4096,4096,7168" > "$OUT/ncu_$k.txt" 2>&1
        echo "ncu $k exit: $?"
        grep -E "gmma_cycles_active|Duration|Compute \(SM\) Throughput|Memory Throughput|Stall|Warp Cycles Per Issued" \
          "$OUT/ncu_$k.txt" | head -12
      done
      ;;
    decode)
      for pair in "1,2112,7168 mma_m8_n64_k256_st4_w4_sk8" "1,7168,16384 mma_m8_n64_k256_st4_w4_sk2" \
                  "64,7168,16384 wgmma_m64_n64_k128_st8_w8_sk1"; do
        set -- $pair
        for kern in "$2" stream_read; do
          f="$OUT/ncu_decode_${1//,/x}_$kern.txt"
          regex=$([[ $kern == stream_read ]] && echo stream_read || echo "splitk_kernel|wgmma_kernel")
          filt=$([[ $kern == stream_read ]] && echo none || echo "$kern")
          timeout -s KILL 90 ncu --clock-control none --kernel-name "regex:$regex" --launch-skip 2 --launch-count 1 \
            --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
            --metrics dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum \
            "$B" --iters 5 --no-blaslt --filter "$filt" --shapes "$1" > "$f" 2>&1
          echo "== $1 $kern (exit $?)"
          grep -E "dram__bytes_read.sum |dram__throughput.avg.pct|gpu__time_duration.sum|Achieved Occupancy|Grid Size|Registers Per|Waves Per SM" "$f" | head -8
        done
      done
      ;;
  esac
done
