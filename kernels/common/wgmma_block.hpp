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

// k-blocks 0 .. n-1 promoted through two partial tiles that take turns: block i+1's wgmma are issued before
// block i is waited for, so the tensor cores work through i+1 while the CUDA cores promote i, and one block is
// always in flight. ta holds a block in flight across the loop's back edge, in the same registers at the loop's
// head and at the edge, so ptxas keeps the wgmma asynchronous (no C7510/C7514 warning).
//   issue(i, t, slot): wait for block i's operands and issue its wgmma into t (a fresh partial);
//   retire(i, t, slot): block i's wgmma are complete: fence t, hand its stage back, promote it.
// slot is 0 for ta and 1 for tb, a constant once inlined, so that a caller can keep values of the block in flight
// (its scales, loaded before the wait) in a two-entry array that stays in registers.
template <int R, class Issue, class Retire>
__device__ __forceinline__ void wgmma_in_turns(int n, float (&ta)[R], float (&tb)[R], Issue&& issue, Retire&& retire) {
  constexpr int A = 0, B = 1;
  if (n <= 0) return;
  issue(0, ta, A);
  int i = 0;
  for (; i + 2 < n; i += 2) {
    issue(i + 1, tb, B);
    wgmma_wait<1>();
    retire(i, ta, A);
    issue(i + 2, ta, A);
    wgmma_wait<1>();
    retire(i + 1, tb, B);
  }
  if (i + 1 < n) {
    issue(i + 1, tb, B);
    wgmma_wait<1>();
    retire(i, ta, A);
    wgmma_wait<0>();
    retire(i + 1, tb, B);
  } else {
    wgmma_wait<0>();
    retire(i, ta, A);
  }
}

}  // namespace cktune::gpu::sm90
#endif  // CKTUNE_CUDA
