#!/usr/bin/env bash
# Build the libFuzzer targets with Debian's clang and run each one in turn (docs/fuzzing.md).
#   scripts/fuzz.sh [seconds per target] [target...]     (default: 600 s; fuzz_capture fuzz_csv fuzz_job)
# Environment: CLANGXX (default clang++-19), BUILD_DIR (default build-fuzz).
# The corpus each run grows is kept in $BUILD_DIR/run/<target>/ (the seeds in tests/fuzz/corpus/ are
# only read); crashes land in $BUILD_DIR/run/<target>-crash-*; the log of each run in
# $BUILD_DIR/run/<target>.log. Exit status: non-zero when a target found something.
set -euo pipefail

seconds=${1:-600}
shift || true
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(fuzz_capture fuzz_csv fuzz_job)
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-fuzz}
cxx=${CLANGXX:-clang++-19}
cc=${cxx/clang++/clang}

if ! command -v "$cxx" >/dev/null; then
  echo "fuzz.sh: $cxx not found (apt-get install clang-19)" >&2
  exit 2
fi
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="$cc" \
  -DCKTUNE_FUZZ=ON -DCKTUNE_GPU=off -DCKTUNE_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" --target "${targets[@]}"

declare -A dict=([fuzz_capture]=capture.dict [fuzz_csv]=csv.dict [fuzz_job]=job.dict)
status=0
mkdir -p "$build/run"
for t in "${targets[@]}"; do
  mkdir -p "$build/run/$t"
  echo "== $t: ${seconds}s" >&2
  if ! (cd "$build/run" && "$build/tests/fuzz/$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
      -print_final_stats=1 \
      -dict="$root/tests/fuzz/${dict[$t]}" -artifact_prefix="$build/run/$t-" \
      "$t" "$root/tests/fuzz/corpus/$t" >"$t.log" 2>&1); then
    echo "$t: FOUND SOMETHING, see $build/run/$t.log and $build/run/$t-*" >&2
    status=1
  fi
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' \
    "$build/run/$t.log" >&2 || true
  grep -E '#[0-9]+ +(DONE|REDUCE|NEW|pulse)' "$build/run/$t.log" | tail -1 >&2 || true
done
exit $status
