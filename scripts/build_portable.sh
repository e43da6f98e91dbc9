#!/usr/bin/env bash
# Build the binaries that travel to the GPU machine (Ubuntu 24.04, driver 580, CUDA 13.0): CUDA backend
# for sm_90a, cudart/libstdc++/libgcc/re2 static, fmt/spdlog header-only. Copies cktune and
# cktune_gpu_tests into .carry/ (git-ignored), which the device tool carries along with the tree.
# Usage: scripts/build_portable.sh [build-dir]   (default build-portable/; JOBS=N, default 2)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-portable}
nvcc=${CUDACXX:-/usr/local/cuda/bin/nvcc}

start=$(date +%s)
cmake -S "$root" -B "$build" -G Ninja -DCKTUNE_GPU=cuda -DCKTUNE_PORTABLE=ON -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_COMPILER="$nvcc"
cmake --build "$build" -j "${JOBS:-2}" --target cktune cktune_gpu_tests

mkdir -p "$root/.carry"
for exe in "$build/src/cktune" "$build/tests/cktune_gpu_tests"; do
  [ -x "$exe" ] || { echo "build_portable: $exe was not built" >&2; exit 1; }
  strip --strip-debug -o "$root/.carry/$(basename "$exe")" "$exe"
done

# Only libraries every Linux has may remain dynamic; libcuda comes from the driver at run time.
status=0
for exe in "$root/.carry/cktune" "$root/.carry/cktune_gpu_tests"; do
  deps=$(ldd "$exe" | awk '{print $1}')
  bad=$(echo "$deps" | grep -Ev '^(linux-vdso\.so\.1|/lib64/ld-linux-x86-64\.so\.2|lib(c|m|dl|rt|pthread|z)\.so\.[0-9]+)$' || true)
  if [ -n "$bad" ]; then
    echo "build_portable: $(basename "$exe") still needs: $bad" >&2
    status=1
  fi
  # glibc symbol versions: Ubuntu 24.04 has 2.39, so anything up to Debian 12's 2.36 is fine.
  maxglibc=$(objdump -T "$exe" | grep -o 'GLIBC_[0-9.]*' | sort -Vu | tail -1)
  echo "build_portable: .carry/$(basename "$exe") $(du -h "$exe" | cut -f1), needs ${maxglibc:-no glibc version}"
done
# The device tool carries at most 64 MiB: the two binaries travel xz-compressed in .carryz/ (git-ignored);
# on the GPU machine `scripts/unpack_carry.sh` restores .carry/.
mkdir -p "$root/.carryz"
for exe in cktune cktune_gpu_tests; do xz -T2 -3 -c "$root/.carry/$exe" > "$root/.carryz/$exe.xz"; done
echo "build_portable: .carryz/ $(du -sh "$root/.carryz" | cut -f1) (carry .carryz; run scripts/unpack_carry.sh there first)"
# A call carries the working tree (tracked and untracked, not ignored) with .carryz: warn before the device tool refuses it.
# (Tracked files moved aside for a call are gone from the tree: stat skips them, and its status must not stop the script.)
tree=$(cd "$root" && git ls-files -z --cached --others --exclude-standard | { xargs -0 stat -c %s 2>/dev/null || true; } |
  awk '{s += $1} END {print s + 0}')
carry=$(du -sb "$root/.carryz" | cut -f1)
limit=$((64 * 1024 * 1024))
if [ $((tree + carry)) -gt $limit ]; then
  echo "build_portable: the tree ($((tree / 1048576)) MiB) and .carryz ($((carry / 1048576)) MiB) are over the 64 MiB" \
    "a device call carries by $(((tree + carry - limit) / 1048576 + 1)) MiB; move the largest data files aside for the call:" >&2
  # (head closes the pipe early and moved-aside files are missing: neither may stop the script.)
  (cd "$root" && git ls-files -z --cached --others --exclude-standard docs/perf/data | { xargs -0 ls -S 2>/dev/null || true; } |
    head -5 | sed 's/^/  /') >&2 || true
fi
end=$(date +%s)
echo "build_portable: done in $((end - start)) s; run on the GPU machine: scripts/unpack_carry.sh; .carry/cktune discover"
exit $status
