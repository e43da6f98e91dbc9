#!/usr/bin/env bash
# AMD compile check without ROCm: compile every kernel TU (kernels/*/*.cu, moe_2stages/sorting.cu
# included) as HIP for gfx942 with Debian's clang-19, the HIP headers of Debian's libamdhip64-dev and
# the rocPRIM headers of librocprim-dev, device side to ISA assembly (so
# the AMDGPU back end runs: MFMA builtins, register allocation) and host side to a syntax check; also
# the GPU host wrappers in src/gpu/. Nothing is linked or run: this proves the AMD path compiles, not
# that it is correct. Usage: scripts/amd_compile_check.sh [--arch gfxNNN] [--device-only] [--keep DIR]
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
arch=gfx942
device_only=0
keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) arch="$2"; shift 2 ;;
    --device-only) device_only=1; shift ;;
    --keep) keep="$2"; shift 2 ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "amd_compile_check: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

clang=${CLANG:-}
if [ -z "$clang" ]; then
  for c in clang++-19 clang++-20 clang++-18 clang++; do
    if command -v "$c" >/dev/null 2>&1; then clang=$c; break; fi
  done
fi
[ -n "$clang" ] || { echo "amd_compile_check: no clang++ found (Debian: apt-get install clang-19 lld-19)" >&2; exit 2; }
hip_include=${HIP_INCLUDE:-/usr/include}
[ -f "$hip_include/hip/hip_runtime.h" ] || {
  echo "amd_compile_check: no hip/hip_runtime.h under $hip_include (Debian: apt-get install libamdhip64-dev)" >&2; exit 2; }
[ -f "$hip_include/rocprim/rocprim.hpp" ] || {
  echo "amd_compile_check: no rocprim/rocprim.hpp under $hip_include (Debian: apt-get install librocprim-dev)" >&2; exit 2; }

out=${keep:-$(mktemp -d)}
mkdir -p "$out"
[ -n "$keep" ] || trap 'rm -rf "$out"' EXIT

# -nogpulib: no ROCm device libraries here, so only device code that needs none (no printf/assert
# lowering through ockl) can be emitted; -S stops before the device link that would need them.
# rocPRIM (kernels/common/prim.hpp, from Debian's librocprim-dev 5.3) writes `template f` without a
# template argument list, which clang 19 diagnoses.
common=(-x hip -std=c++20 --offload-arch="$arch" -nogpulib
        -I "$root" -I "$root/include" -I "$root/src" -DCKTUNE_WITH_HIP=1 -Wno-unused-command-line-argument
        -Wno-missing-template-arg-list-after-template-kw)
# /usr/include is searched already; naming it again with -isystem breaks libstdc++'s #include_next.
[ "$hip_include" = /usr/include ] || common+=(-isystem "$hip_include")

echo "amd_compile_check: $($clang --version | head -1), target $arch, HIP headers $hip_include"
failed=0
checked=0
shopt -s nullglob
kernels=("$root"/kernels/*/*.cu)
hosts=("$root"/src/gpu/*.cpp "$root"/src/backends/gpu_backend.cpp "$root"/src/families/*/gpu.cpp)
if [ ${#kernels[@]} -eq 0 ]; then echo "  (no kernel sources under kernels/*/)"; fi

check() {  # check <file> <kind: kernel|host>
  local file=$1 kind=$2 rel=${1#"$root"/} base status="" t0 t1
  base=$(echo "$rel" | tr '/' '_')
  t0=$(date +%s.%N)
  if [ "$kind" = kernel ]; then
    if "$clang" "${common[@]}" --offload-device-only -O3 -S -o "$out/$base.$arch.s" "$file" 2>"$out/$base.device.log"; then
      local mfma
      mfma=$(grep -c 'v_mfma' "$out/$base.$arch.s" || true)
      status="device ok ($mfma MFMA instructions)"
    else
      status="device FAILED"
      failed=$((failed + 1))
      sed 's/^/      /' "$out/$base.device.log" | grep -v '^ *$' | head -30
    fi
  fi
  if [ "$device_only" = 0 ]; then
    if "$clang" "${common[@]}" --offload-host-only -fsyntax-only "$file" 2>"$out/$base.host.log"; then
      status="${status:+$status, }host ok"
    else
      status="${status:+$status, }host FAILED"
      failed=$((failed + 1))
      sed 's/^/      /' "$out/$base.host.log" | grep -v '^ *$' | head -30
    fi
  fi
  t1=$(date +%s.%N)
  checked=$((checked + 1))
  printf '  %-50s %s (%s s)\n' "$rel" "$status" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')"
}

for f in "${kernels[@]}"; do check "$f" kernel; done
if [ "$device_only" = 0 ]; then
  for f in "${hosts[@]}"; do
    case "$f" in */runtime_none.cpp|*/arch.cpp) continue ;; esac  # not HIP code
    check "$f" host
  done
fi

if [ "$failed" -gt 0 ]; then
  echo "amd_compile_check: $failed failure(s) in $checked file(s)"
  exit 1
fi
echo "amd_compile_check: $checked file(s) compile for $arch"
