#pragma once
// Small device pieces the MoE kernels share: the 128-byte swizzle of their shared-memory tiles, an MMA
// A fragment out of such a tile, SiLU, the per-1x128 re-quantisation of stage 1's output, and the
// fp32 sum of bf16 rows. Everything here is inline; no kernel is defined here.
#include <cstdint>

#include "../common/arch_sm90.hpp"
#include "../common/numeric.hpp"

#if defined(CKTUNE_CUDA)
#include <cuda_fp8.h>
#endif

namespace cktune::kernels::moe_2stages::detail {

// Byte offset of 16-byte chunk `ch` of row `row` in a tile of kRowBytes rows, 128-byte swizzled (as TMA
// writes it from a 1024-byte-aligned base).
template <int kRowBytes>
__device__ __forceinline__ int swz(int row, int ch) { return row * kRowBytes + ((ch ^ (row & 7)) << 4); }

__device__ __forceinline__ float silu(float x) { return x / (1.0f + __expf(-x)); }

#if defined(CKTUNE_CUDA)
// The A fragment of one 16x8x32 fp8 MMA: rows row0..row0+15, K bytes 32*ks..32*ks+31 of a [rows][128]
// swizzled tile at shared address `tile`.
__device__ __forceinline__ void load_a_frag(uint32_t tile, int row0, int ks, int lane, uint32_t (&af)[4]) {
  gpu::sm90::ldmatrix_x4(tile + swz<128>(row0 + (lane & 7) + ((lane >> 3) & 1) * 8, 2 * ks + (lane >> 4)), af[0],
                         af[1], af[2], af[3]);
}

// The two steps of the 1x128 re-quantisation below, which the stage-1 kernels that re-quantise their own tile (`_q`)
// share: a group's scale from its amax (1 for an all-zero group), and one value's fp8 byte.
__device__ __forceinline__ float requant_scale(float amax) { return amax > 0.f ? amax / 448.0f : 1.0f; }
__device__ __forceinline__ uint32_t requant_fp8(float v, float scale) {
  return static_cast<uint32_t>(__nv_cvt_float_to_fp8(v / scale, __NV_SATFINITE, __NV_E4M3));
}
// One 1x128 group of stage 1's bf16 output re-quantised for stage 2 as AITER does: the warp holds the
// group, 4 values a lane; scale = amax/448 (1 for an all-zero group), values rounded to nearest even and
// saturated to fp8 e4m3fn. Returns this lane's 4 bytes, packed; `scale` is the group's.
__device__ __forceinline__ uint32_t quantize_1x128(const float (&v)[4], float& scale) {
  float amax = fmaxf(fmaxf(fabsf(v[0]), fabsf(v[1])), fmaxf(fabsf(v[2]), fabsf(v[3])));
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, off));
  scale = requant_scale(amax);
  uint32_t packed = 0;
#pragma unroll
  for (int k = 0; k < 4; ++k) packed |= requant_fp8(v[k], scale) << (8 * k);
  return packed;
}
#endif

// s[0..7] += the 8 bf16 of v (in memory order).
__device__ __forceinline__ void add_bf16x8(float (&s)[8], uint4 v) {
  const uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    s[2 * q] += gpu::bf16_bits_to_f32(static_cast<uint16_t>(w[q] & 0xffffu));
    s[2 * q + 1] += gpu::bf16_bits_to_f32(static_cast<uint16_t>(w[q] >> 16));
  }
}
__device__ __forceinline__ uint4 pack_bf16x8(const float (&s)[8]) {
  uint4 o;
  o.x = gpu::pack_bf16x2(s[0], s[1]);
  o.y = gpu::pack_bf16x2(s[2], s[3]);
  o.z = gpu::pack_bf16x2(s[4], s[5]);
  o.w = gpu::pack_bf16x2(s[6], s[7]);
  return o;
}

}  // namespace cktune::kernels::moe_2stages::detail
