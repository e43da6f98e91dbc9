#pragma once
// One 128-K scale block on Hopper's fp8 wgmma: the four chained m64nNk32 e4m3 instructions over
// 128-byte-swizzled K-major tiles (A: this warpgroup's 64 rows, B: N rows) in shared memory, into a
// fresh fp32 partial t (the first instruction overwrites it; acc_in = 1: adds to it), committed as one group. B may also sit
// without swizzle (smem_desc_interleave: a8w8_bpreshuffle's weights as TMA un-shuffles them). The
// caller waits for the group, fences t (fence_operands) and promotes it with the block's scales
// (promote_rows).
#include <cstdint>

#include "arch_sm90.hpp"
#include "wgmma_e4m3.hpp"

#if defined(CKTUNE_CUDA)
namespace cktune::gpu::sm90 {

// Over descriptors: da / db address the first 32-K step, a_step / b_step (in descriptor units of 16
// bytes) move to the next one.
template <int N>
__device__ __forceinline__ void wgmma_block_k128_desc(float (&t)[N / 2], uint64_t da, uint64_t db, uint32_t a_step,
                                                      uint32_t b_step, int acc_in = 0) {
  wgmma_fence();
#pragma unroll
  for (int ks = 0; ks < 4; ++ks) WgmmaE4m3<N>::run(t, da + a_step * ks, db + b_step * ks, ks > 0 ? 1 : acc_in);
  wgmma_commit();
}

// Both operands 128-byte swizzled, 128 K-bytes a row: a 32-K step is 32 bytes along the row.
template <int N>
__device__ __forceinline__ void wgmma_block_k128(float (&t)[N / 2], uint32_t a_smem, uint32_t b_smem, int acc_in = 0) {
  wgmma_block_k128_desc<N>(t, smem_desc_sw128(a_smem), smem_desc_sw128(b_smem), 2, 2, acc_in);
}

}  // namespace cktune::gpu::sm90
#endif  // CKTUNE_CUDA
