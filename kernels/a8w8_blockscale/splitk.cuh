#pragma once
// The split-K epilogue shared by both kernels: every CTA of a tile stores its fp32 partial, the
// last one to arrive (atomic tile counter) sums the S partials in the fixed order z = 0..S-1 and
// writes bf16, then resets the counter. Deterministic: the sum order never depends on timing.
#include <cstdint>

#include "../common/compat.hpp"
#include "../common/memory.hpp"
#include "../common/numeric.hpp"

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

}  // namespace cktune::kernels::a8w8_blockscale::detail
