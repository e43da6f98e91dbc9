#!/usr/bin/env bash
# The test command (README, .ci/run): install dependencies, build and run every test (CPU build: the
# whole workflow runs against the CPU reference; GPU tests skip cleanly), the same tests under ASan and
# UBSan, then build the CUDA configuration when nvcc is there and the HIP configuration with Debian's
# clang-19 and ROCm packages (compile and link; no GPU on CI), and compile-check the AMD device code
# for gfx942.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/scripts/install_deps.sh"
jobs=${JOBS:-$(nproc)}
build=${BUILD_DIR:-$root/build-ci}
# A compiler cache (Debian's ccache) serves the host files the CPU, CUDA and HIP configurations share:
# only the GPU files and the three backend-aware ones differ (src/gpu/CMakeLists.txt). Paths are taken
# relative to the checkout, so sibling build folders hit the same entries. CCACHE=0 turns it off.
launcher=()
if [ "${CCACHE:-1}" = 1 ] && command -v ccache >/dev/null 2>&1; then
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
t0=$(date +%s)
cmake -S "$root" -B "$build" -G Ninja -DCKTUNE_GPU=off -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
cmake --build "$build" -j "$jobs"
echo "run_tests: CPU build in $(( $(date +%s) - t0 )) s"
ctest --test-dir "$build" --output-on-failure -j "$jobs" --timeout 900
# Sanitizer stage (on by default; SANITIZE=0 skips it): the CPU build again with ASan + UBSan
# (CKTUNE_SANITIZE), only what the unit and CLI tests need (cktune, cktune_tests), then those tests.
# -O1 -g1 keeps stack traces readable with file:line; asserts stay on. A unity build (8 files per
# translation unit) compiles each batch's shared headers (nlohmann/json, CLI11, gtest) once instead of
# once a file: the instrumented build is several times more expensive per file than the plain one.
# Times and what runs: docs/reliability.md, "Sanitizers and fuzzing".
if [ "${SANITIZE:-1}" = 1 ]; then
  t2=$(date +%s)
  san=${SAN_BUILD_DIR:-$root/build-ci-san}
  cmake -S "$root" -B "$san" -G Ninja -DCKTUNE_GPU=off -DCKTUNE_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1" \
    -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=8 "${launcher[@]}" >/dev/null
  cmake --build "$san" -j "$jobs" --target cktune cktune_tests
  echo "run_tests: sanitizer build in $(( $(date +%s) - t2 )) s"
  t3=$(date +%s)
  # Every report goes to a file of its own (log_path): a report from a process whose exit status a test
  # does not look at (a worker, a command expected to fail with exit 1) still fails the stage.
  reports=$san/sanitizer-reports
  rm -rf "$reports" && mkdir -p "$reports"
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:exitcode=86:log_path=$reports/asan} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:exitcode=86:log_path=$reports/ubsan} \
    ctest --test-dir "$san" -L 'unit|cli' -LE timing --output-on-failure -j "$jobs" --timeout 1800 || rc=$?
  echo "run_tests: sanitizer tests in $(( $(date +%s) - t3 )) s"
  if [ -n "$(ls -A "$reports")" ]; then
    for f in "$reports"/*; do echo "== $f"; cat "$f"; done
    echo "run_tests: sanitizer reports above ($reports)" >&2
    rc=1
  fi
  [ "${rc:-0}" = 0 ] || exit 1
fi
if [ -x "${CUDACXX:-/usr/local/cuda/bin/nvcc}" ]; then
  t1=$(date +%s)
  JOBS=$jobs "$root/.ci/build_cuda.sh" "${CUDA_BUILD_DIR:-$root/build-ci-cuda}" "${launcher[@]}"
  echo "run_tests: CUDA build (compile + link) in $(( $(date +%s) - t1 )) s"
else
  echo "run_tests: no nvcc at ${CUDACXX:-/usr/local/cuda/bin/nvcc}: CUDA build skipped"
fi
t4=$(date +%s)
JOBS=$jobs "$root/.ci/build_hip.sh" "${HIP_BUILD_DIR:-$root/build-ci-hip}" "${launcher[@]}"
echo "run_tests: HIP build (compile + link) in $(( $(date +%s) - t4 )) s"
"$root/scripts/amd_compile_check.sh"
