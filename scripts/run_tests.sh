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
# Sanitizer stage: the CPU build again with ASan + UBSan (CKTUNE_SANITIZE), unit and CLI tests only.
# -O1 -g1 keeps stack traces readable; asserts stay on. Off unless SANITIZE=1: on the 2-core CI machine
# its build alone was measured at about 30 s per source file (~35 min for the tree), which would take CI
# past its time budget (docs/reliability.md, "Sanitizers and fuzzing").
if [ "${SANITIZE:-0}" = 1 ]; then
  t2=$(date +%s)
  san=${SAN_BUILD_DIR:-$root/build-ci-san}
  cmake -S "$root" -B "$san" -G Ninja -DCKTUNE_GPU=off -DCKTUNE_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1" >/dev/null
  cmake --build "$san" -j "$jobs"
  echo "run_tests: sanitizer build in $(( $(date +%s) - t2 )) s"
  t3=$(date +%s)
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_string_checks=1} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    ctest --test-dir "$san" -L 'unit|cli' --output-on-failure -j "$jobs" --timeout 1800
  echo "run_tests: sanitizer tests in $(( $(date +%s) - t3 )) s"
fi
if [ -x "${CUDACXX:-/usr/local/cuda/bin/nvcc}" ]; then
  t1=$(date +%s)
  JOBS=$jobs "$root/.ci/build_cuda.sh" "${CUDA_BUILD_DIR:-$root/build-ci-cuda}"
  echo "run_tests: CUDA build (compile + link) in $(( $(date +%s) - t1 )) s"
else
  echo "run_tests: no nvcc at ${CUDACXX:-/usr/local/cuda/bin/nvcc}: CUDA build skipped"
fi
"$root/scripts/amd_compile_check.sh"
