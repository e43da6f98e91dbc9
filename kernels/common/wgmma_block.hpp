#pragma once
// One 128-K scale block on Hopper's fp8 wgmma: the four chained m64nNk32 e4m3 instructions over
// 128-byte-swizzled K-major tiles (A: this warpgroup's 64 rows, B: N rows) in shared memory, into a
// fresh fp32 partial t (the first instruction overwrites it), committed as one group. The caller waits
// for the group, fences t (fence_operands) and promotes it with the block's scales (promote_rows).
#include <cstdint>

#include "arch_sm90.hpp"
#include "wgmma_e4m3.hpp"

#if defined(CKTUNE_CUDA)
namespace cktune::gpu::sm90 {

template <int N>
__device__ __forceinline__ void wgmma_block_k128(float (&t)[N / 2], uint32_t a_smem, uint32_t b_smem) {
  const uint64_t da = smem_desc_sw128(a_smem), db = smem_desc_sw128(b_smem);
  wgmma_fence();
#pragma unroll
  for (int ks = 0; ks < 4; ++ks) WgmmaE4m3<N>::run(t, da + 2 * ks, db + 2 * ks, ks > 0 ? 1 : 0);  // +32 bytes a step
  wgmma_commit();
}

}  // namespace cktune::gpu::sm90
#endif  // CKTUNE_CUDA
