#!/usr/bin/env bash
# CI: the HIP configuration compiles and links with Debian's packages only (clang-19, clang-tools-19,
# lld-19, libamdhip64-dev, rocm-device-libs, librocprim-dev): the whole binary and the GPU tests, device
# code for the AMD targets Debian's device libraries can link (gfx90a; gfx942 is compiled without a link
# by scripts/amd_compile_check.sh). Then the binaries are started: --version names the backend, and the
# GPU tests skip cleanly (no AMD GPU on CI). Nothing runs on an AMD GPU here.
# Usage: .ci/build_hip.sh [build-dir] [extra cmake arguments]   (JOBS=N, default 2)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-hip}
shift || true

start=$(date +%s)
cmake -S "$root" -B "$build" -G Ninja -DCKTUNE_GPU=hip -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build "$build" -j "${JOBS:-2}" --target cktune cktune_gpu_tests
end=$(date +%s)
echo "build_hip: cktune and cktune_gpu_tests built in $((end - start)) s ($build)"

# The binary starts and says what it is; without an AMD GPU every GPU test skips (none fails).
"$build/src/cktune" --version
"$build/tests/cktune_gpu_tests" --gtest_brief=1 > "$build/gpu_tests.log" 2>&1 || {
  cat "$build/gpu_tests.log"; echo "build_hip: the GPU tests failed on a machine without a GPU" >&2; exit 1; }
tail -3 "$build/gpu_tests.log"
