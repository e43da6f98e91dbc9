#pragma once
// The two split-K epilogues the kernels share. Both are deterministic: the sum order never depends on
// timing.
// - Cluster (NVIDIA sm_90+, the one both kernels use there): the S CTAs of a tile are one thread-block
//   cluster; each parks its fp32 partial in its own shared memory and, after a cluster barrier, CTA
//   rank r sums the r-th slice of the tile over the S CTAs through distributed shared memory. No
//   workspace, no atomics, no second launch.
// - Workspace (portable): every CTA stores its fp32 partial, the last one to arrive (atomic tile
//   counter) sums the S partials in the order z = 0..S-1, writes bf16 and resets the counter.
#include <cstdint>

#include "../common/compat.hpp"
#include "../common/memory.hpp"
#include "../common/numeric.hpp"
#if defined(CKTUNE_CUDA)
#include <cooperative_groups.h>
#endif

namespace cktune::kernels::a8w8_blockscale::detail {

// Tile counters sit at the start of the workspace in a region sized by the shape alone (for the
// smallest tiles any instance uses), so that no instance's partials ever land on another
// instance's counters: one prepare_workspace() per shape serves every instance.
inline size_t counter_region_bytes(int M, int N) {
  const size_t tiles = static_cast<size_t>((N + 31) / 32) * ((M + 7) / 8);
  return (tiles * sizeof(int) + 255) / 256 * 256;
}

// for_each(f) must call f(value, m, n) for every in-range output element this thread owns.
// kOwners: number of threads that reach this call (a multiple of the warp size); they sync on
// barrier 1 (gpu::barrier_sync), so on NVIDIA threads that already left are not waited for.
template <int kOwners, class ForEach>
__device__ __forceinline__ void splitk_finish(ForEach&& for_each, float* partials, int* counters, int z, int S,
                                              int tile, int M, int N, uint16_t* y) {
  const size_t plane = static_cast<size_t>(M) * N;
  for_each([&](float v, int m, int n) { gpu::store_global_cg(partials + z * plane + static_cast<size_t>(m) * N + n, v); });
  __threadfence();
  __shared__ int s_last;
  gpu::barrier_sync<1, kOwners>();
  if (threadIdx.x == 0) s_last = (atomicAdd(counters + tile, 1) == S - 1);
  gpu::barrier_sync<1, kOwners>();
  if (!s_last) return;
  __threadfence();
  for_each([&](float, int m, int n) {
    const size_t off = static_cast<size_t>(m) * N + n;
    float sum = 0.f;
    for (int q = 0; q < S; ++q) sum += gpu::load_global_cg(partials + q * plane + off);
    y[off] = gpu::f32_to_bf16_bits(sum);
  });
  if (threadIdx.x == 0) counters[tile] = 0;
}

#if defined(CKTUNE_CUDA)
// Cluster split-K, after every CTA of the 1 x 1 x S cluster has parked its partial tile in its own
// shared memory `red` as kParts planes of BM x BN floats, rows kPitch floats apart (kParts > 1: warps
// that split a stage's K steps). Every thread of every CTA calls this (it holds two cluster barriers);
// those with active == false only wait. CTA rank r sums elements [r*E/S, (r+1)*E/S) of the tile over
// CTAs q = 0..S-1 and planes 0..kParts-1 in that order, idx/nthreads spreading them over the active
// threads, and writes bf16; the second barrier keeps every CTA's shared memory alive until read.
// kTransposed: the parked tile is Y^T (BM rows of W by BN tokens, the swapped-operand kernel): element
// (r, c) goes to y[m0 + c, n0 + r], walked so that neighbouring threads write neighbouring columns of y.
template <int BM, int BN, int kPitch, int kParts, bool kTransposed = false>
__device__ __forceinline__ void cluster_splitk_reduce(const float* red, bool active, int idx, int nthreads, int S,
                                                      int m0, int n0, int M, int N, uint16_t* y) {
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  // A launch without a split (S == 1) is a cluster of one CTA: a CTA barrier does.
  auto sync = [&] { S > 1 ? cluster.sync() : __syncthreads(); };
  sync();
  if (active) {
    constexpr int E = BM * BN;
    constexpr int kPlane = BM * kPitch;
    const int rank = static_cast<int>(cluster.block_rank());
    const int e0 = rank * E / S, e1 = (rank + 1) * E / S;
    for (int e = e0 + idx; e < e1; e += nthreads) {
      const int r = kTransposed ? e % BM : e / BN, c = kTransposed ? e / BM : e % BN;
      const int m = m0 + (kTransposed ? c : r), n = n0 + (kTransposed ? r : c);
      const int off = r * kPitch + c;
      float sum = 0.f;
      for (int q = 0; q < S; ++q) {
        const float* rq = cluster.map_shared_rank(red, q);
#pragma unroll
        for (int k = 0; k < kParts; ++k) sum += rq[k * kPlane + off];
      }
      if (m < M && n < N) y[static_cast<size_t>(m) * N + n] = gpu::f32_to_bf16_bits(sum);
    }
  }
  sync();
}
#endif

}  // namespace cktune::kernels::a8w8_blockscale::detail
