#!/usr/bin/env bash
# CI: the CUDA configuration compiles and links (nvcc 13, sm_90a); nothing runs (no GPU on CI).
# Usage: .ci/build_cuda.sh [build-dir] [extra cmake arguments]   (default build-cuda/; JOBS=N, default 2)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-cuda}
shift || true
nvcc=${CUDACXX:-/usr/local/cuda/bin/nvcc}
[ -x "$nvcc" ] || { echo "build_cuda: nvcc not found at $nvcc (set CUDACXX)" >&2; exit 2; }

start=$(date +%s)
cmake -S "$root" -B "$build" -G Ninja -DCKTUNE_GPU=cuda -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build "$build" -j "${JOBS:-2}" --target cktune cktune_gpu_tests
end=$(date +%s)
echo "build_cuda: cktune and cktune_gpu_tests built in $((end - start)) s ($build)"
