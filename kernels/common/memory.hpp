#pragma once
// Portable device helpers for memory traffic and partial-CTA barriers. Each has one spelling for
// kernels; the vendor-specific form sits here.
#include <cstdint>

#include "compat.hpp"

#if defined(__CUDACC__) || defined(__HIPCC__) || defined(__HIP__)
namespace cktune::gpu {

// Stores/loads that bypass (or do not allocate in) the per-SM/CU cache: data another CTA reads.
__device__ __forceinline__ void store_global_cg(float* p, float v) {
#if defined(CKTUNE_CUDA)
  __stcg(p, v);
#else
  __builtin_nontemporal_store(v, p);
#endif
}
__device__ __forceinline__ float load_global_cg(const float* p) {
#if defined(CKTUNE_CUDA)
  return __ldcg(p);
#else
  return __builtin_nontemporal_load(p);
#endif
}

// 16 bytes of data read once (weights streamed by a decode kernel): not kept in the per-SM/CU cache. The
// load is an ordinary one to the compiler (no volatile, no memory clobber), so it can be issued early and
// many can be in flight.
__device__ __forceinline__ uint4 load_stream_16(const void* p) {
#if defined(CKTUNE_CUDA)
  uint4 v;
  asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];\n"
      : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
      : "l"(p));
  return v;
#else
  return *static_cast<const uint4*>(p);
#endif
}

// A read-only float loaded where the call stands. The asm is volatile, so the compiler keeps the load ahead of the
// waits written after it (an ordinary read-only load may be sunk to its first use, past them), and the value has the
// time until that use to arrive.
__device__ __forceinline__ float load_early(const float* p) {
#if defined(CKTUNE_CUDA)
  float v;
  asm volatile("ld.global.nc.f32 %0, [%1];\n" : "=f"(v) : "l"(p));
  return v;
#else
  return *p;
#endif
}

// Asks for the 128-byte lines of floats [p, p + n) in the last-level cache, one line a lane of the calling
// warp (lane = 0..31): for small operands a kernel reads only in its epilogue (per-token scales), so that
// their first touch, a DRAM miss when the inputs are cold, is off the epilogue's critical path. A hint: no
// effect on results; nothing when n <= 0.
__device__ __forceinline__ void prefetch_floats_l2(const float* p, int n, int lane) {
  if (n <= 0) return;
  const auto first = reinterpret_cast<uintptr_t>(p) & ~uintptr_t{127};
  const auto last = reinterpret_cast<uintptr_t>(p + n - 1) & ~uintptr_t{127};
  for (uintptr_t a = first + static_cast<uintptr_t>(lane) * 128; a <= last; a += 32 * 128) {
#if defined(CKTUNE_CUDA)
    asm volatile("prefetch.global.L2 [%0];\n" ::"l"(a));
#else
    __builtin_prefetch(reinterpret_cast<const void*>(a));
#endif
  }
}

// Barrier among `kThreads` threads of the block (a multiple of the warp size). On NVIDIA a named
// barrier, so warps that already left the kernel are not waited for; AMD has no named barriers:
// there the kernel must keep every thread alive up to this point (kThreads == blockDim.x).
template <int kId, int kThreads>
__device__ __forceinline__ void barrier_sync() {
#if defined(CKTUNE_CUDA)
  asm volatile("bar.sync %0, %1;\n" ::"n"(kId), "n"(kThreads));
#else
  __syncthreads();
#endif
}

// A warp's register ring over the items first, first + stride, ... below end (the decode kernels' k-blocks or
// chunks): slot s holds items first + (s + i R) stride. The first R loads are issued, then `between()` runs (work
// that overlaps them), then each item is computed from its slot and the slot refilled with the item R strides on.
// R is a compile-time count so that the slots stay registers.
template <int R, class Load, class Between, class Compute>
__device__ __forceinline__ void register_ring(int first, int end, int stride, Load&& load, Between&& between,
                                              Compute&& compute) {
#pragma unroll
  for (int s = 0; s < R; ++s)
    if (first + s * stride < end) load(s, first + s * stride);
  between();
  for (int base = first; base < end; base += R * stride) {
#pragma unroll
    for (int s = 0; s < R; ++s) {
      const int i = base + s * stride;
      if (i < end) {
        compute(s, i);
        if (i + R * stride < end) load(s, i + R * stride);
      }
    }
  }
}

}  // namespace cktune::gpu
#endif
