#!/usr/bin/env bash
# The test command (README, .ci/run): install dependencies, build and run every test (CPU build: the
# whole workflow runs against the CPU reference; GPU tests skip cleanly), then build the CUDA
# configuration when nvcc is there (compile and link only: no GPU on CI) and compile-check the AMD
# device code for gfx942 with Debian's clang-19.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/scripts/install_deps.sh"
jobs=${JOBS:-$(nproc)}
build=${BUILD_DIR:-$root/build-ci}
t0=$(date +%s)
cmake -S "$root" -B "$build" -G Ninja -DCKTUNE_GPU=off -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$jobs"
echo "run_tests: CPU build in $(( $(date +%s) - t0 )) s"
ctest --test-dir "$build" --output-on-failure -j "$jobs" --timeout 900
if [ -x "${CUDACXX:-/usr/local/cuda/bin/nvcc}" ]; then
  t1=$(date +%s)
  JOBS=$jobs "$root/.ci/build_cuda.sh" "${CUDA_BUILD_DIR:-$root/build-ci-cuda}"
  echo "run_tests: CUDA build (compile + link) in $(( $(date +%s) - t1 )) s"
else
  echo "run_tests: no nvcc at ${CUDACXX:-/usr/local/cuda/bin/nvcc}: CUDA build skipped"
fi
"$root/scripts/amd_compile_check.sh"
