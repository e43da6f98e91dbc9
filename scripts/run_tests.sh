#!/usr/bin/env bash
# The test command (README, .ci/run): install dependencies, build (with the CUDA backend when nvcc is
# there: it compiles and links, nothing runs without a GPU), compile-check the AMD device code for
# gfx942 with Debian's clang-19, and run every test. GPU tests skip cleanly without a device.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/scripts/install_deps.sh"
jobs=${JOBS:-$(nproc)}
build=${BUILD_DIR:-$root/build-ci}
t0=$(date +%s)
cmake -S "$root" -B "$build" -G Ninja -DCKTUNE_GPU=auto -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$jobs"
echo "run_tests: built in $(( $(date +%s) - t0 )) s"
"$root/scripts/amd_compile_check.sh"
ctest --test-dir "$build" --output-on-failure -j "$jobs" --timeout 900
