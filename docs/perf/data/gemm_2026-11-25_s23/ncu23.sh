#!/usr/bin/env bash
# Session 23: Nsight Compute (clocks not locked) of the persistent prefill kernel with its partial tiles taking turns
# (st4 and st6) and of cuBLASLt's first heuristic algorithm at one shape: Speed of Light and the compute
# workload (the tensor pipe's share of the elapsed cycles). With .carryt carried (gemm_dev.xz).
set -u
mkdir -p .carry /tmp/nc; xz -dc .carryt/gemm_dev.xz > .carry/gemm_dev; chmod +x .carry/gemm_dev
NCU=/usr/local/cuda/bin/ncu
SH=${SH:-4096,4096,7168}
run() {  # run <label> <kernel regex> <gemm_dev filter> [extra gemm_dev args]
  timeout 150 $NCU --clock-control none -k "regex:$2" -c 1 --section SpeedOfLight --section ComputeWorkloadAnalysis \
    --section MemoryWorkloadAnalysis .carry/gemm_dev --iters 2 --shapes "$SH" --filter "$3" "${@:4}" > /tmp/nc/$1.txt 2>&1
  echo "== $1 rc=$?"
  grep -E "^  [a-zA-Z_].*\(|Duration|Compute \(SM\) Throughput|Memory Throughput|L1/TEX Cache|L2 Cache Throughput|DRAM Throughput|SM Frequency|highest-utilized|Shared Memory|Issue Slots Busy" /tmp/nc/$1.txt | sed 's/(CUtensorMap.*//' | awk '{$1=$1};1' | head -16
}
run wgmmap2_st4 wgmma_persistent wgmmap2_m128_n128_k128_st4 --no-blaslt
run wgmmap2_st6 wgmma_persistent wgmmap2_m128_n128_k128_st6 --no-blaslt
run cublaslt 'nvjet|xmma|cutlass|gemm' no_such_instance
tar czf $OUT/nc23.tgz -C /tmp nc
