#!/usr/bin/env bash
# Builds the kernel development harness (bench/gpu/gemm_dev) straight with nvcc into .carry/,
# for sm_90a with static cudart; cuBLASLt is dlopen'ed at run time. Usage: scripts/gpu_dev_build.sh
set -euo pipefail
cd "$(dirname "$0")/.."
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
OUT=.carry
mkdir -p "$OUT"
FLAGS=(-std=c++20 -O3 -Iinclude -I. -gencode=arch=compute_90a,code=sm_90a -cudart=static -Xptxas -v -lineinfo)
[ -n "${SKIP_KERNELS:-}" ] || "$NVCC" "${FLAGS[@]}" -c kernels/a8w8_blockscale/a8w8_blockscale.cu -o "$OUT/a8w8_blockscale.o" 2>"$OUT/ptxas.log" &
[ -n "${SKIP_KERNELS:-}" ] || "$NVCC" "${FLAGS[@]}" -c kernels/a8w8_blockscale/a8w8_pertoken.cu -o "$OUT/a8w8_pertoken.o" 2>"$OUT/ptxas_pt.log" &
g++ -std=c++20 -O2 -Iinclude -I. -I/usr/local/cuda/include -c src/gpu/blaslt.cpp -o "$OUT/blaslt.o"
"$NVCC" -std=c++20 -O3 -Iinclude -I. -gencode=arch=compute_90a,code=sm_90a -c bench/gpu/gemm_dev.cu -o "$OUT/gemm_dev.o"
wait
"$NVCC" -gencode=arch=compute_90a,code=sm_90a -cudart=static "$OUT/gemm_dev.o" "$OUT/a8w8_blockscale.o" \
  "$OUT/a8w8_pertoken.o" "$OUT/blaslt.o" -o "$OUT/gemm_dev" -ldl -lpthread
grep -E "spill|registers" "$OUT/ptxas.log" | paste - - | awk '{print $0}' | grep -v " 0 bytes spill stores" || true
echo "built $OUT/gemm_dev"
