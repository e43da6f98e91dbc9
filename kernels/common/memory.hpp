#pragma once
// Portable device helpers for memory traffic and partial-CTA barriers. Each has one spelling for
// kernels; the vendor-specific form sits here.
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

}  // namespace cktune::gpu
#endif
