#pragma once
// Split-K tensor-core kernel for FP8 block-scaled GEMM, built on the 16x8x32 fp8 warp MMA.
//
// It computes the transpose, Y^T = W * X^T: W rows (N) sit on the MMA's 16-row side and X rows (M)
// on its 8-wide side, so a decode GEMM with M = 1 wastes 7/8 of an 8-wide tile instead of 15/16
// of a 16-wide one, and the weights, which dominate the bytes, stream through the wide side.
//
// One pipeline stage holds one 128-K block (a W tile, an X tile, the tile's x scales and its one
// w scale), so scales are applied exactly once per stage: a fresh fp32 partial per 128-K block is
// multiplied by x_scale * w_scale and added into the fp32 accumulator, as the math requires.
//
// Split-K: CTA z of S handles k-blocks [z*KB/S, (z+1)*KB/S). Each CTA writes its fp32 partial
// tile to the workspace; the last CTA of a tile to arrive (atomic counter) sums the S partials in
// the fixed order z = 0..S-1 and writes bf16, so the result does not depend on CTA timing.
// The counter is reset to zero by that CTA, leaving the workspace ready for the next launch.
#include <cstdint>

#include "../common/arch_sm90.hpp"
#include "../common/numeric.hpp"

namespace cktune::kernels::a8w8_blockscale::detail {

struct MmaArgs {
  const uint8_t* xq;
  const float* x_scale;
  const uint8_t* wq;
  const float* w_scale;
  uint16_t* y;
  float* partials;  // [S][M][N] fp32, only when S > 1
  int* counters;    // one per (n tile, m tile), only when S > 1
  int M, N, K, KB, S;
};

template <int BN, int BM, int WN, int WM, int WK, int STAGES>
struct MmaCfg {
  static constexpr int kBN = BN, kBM = BM, kWN = WN, kWM = WM, kWK = WK, kStages = STAGES;
  static constexpr int kWarps = WN * WM * WK;
  static constexpr int kThreads = kWarps * gpu::kWaveSize;
  static constexpr int kTN = BN / WN;  // warp tile, W rows
  static constexpr int kTM = BM / WM;  // warp tile, X rows
  static constexpr int kMI = kTN / 16;
  static constexpr int kNJ = kTM / 8;
  static constexpr int kStageBytes = ((BN + BM) * 128 + BM * 4 + 16 + 127) / 128 * 128;
  static constexpr int kSmemBytes = kStageBytes * STAGES;
  static_assert(kTN % 16 == 0 && kTM % 8 == 0, "warp tile must be whole MMA tiles");
  static_assert(4 % WK == 0, "K-split warps must divide the four 32-K steps of a stage");
  static_assert(128 % BN == 0, "a CTA tile must sit inside one 128-row weight-scale block");
  static_assert(kNJ == 1 || kNJ % 2 == 0, "B fragments are loaded in pairs");
  static_assert((WK - 1) * BN * BM * 4 <= kSmemBytes, "cross-warp reduction must fit in smem");
};

// Byte offset of 16-byte chunk `ch` of row `row` in a [rows][128 B] tile: XOR swizzle so that the
// eight rows an ldmatrix phase reads at one logical chunk hit eight different bank groups.
__device__ __forceinline__ int swz(int row, int ch) { return row * 128 + ((ch ^ (row & 7)) << 4); }

template <class C>
__global__ void __launch_bounds__(C::kThreads) mma_splitk_kernel(const MmaArgs a) {
#if defined(CKTUNE_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  using namespace cktune::gpu::sm90;
  extern __shared__ __align__(128) uint8_t smem[];
  constexpr int BN = C::kBN, BM = C::kBM, MI = C::kMI, NJ = C::kNJ, T = C::kThreads;
  constexpr int STAGES = C::kStages, WK = C::kWK;

  const int tid = threadIdx.x;
  const int lane = tid % gpu::kWaveSize;
  const int warp = tid / gpu::kWaveSize;
  const int kw = warp % WK;                      // which 32-K steps of a stage this warp does
  const int wn = (warp / WK) % C::kWN;
  const int wm = warp / (WK * C::kWN);
  const int n0 = blockIdx.x * BN;
  const int m0 = blockIdx.y * BM;
  const int z = blockIdx.z;
  const int kb_begin = static_cast<int>((static_cast<long long>(z) * a.KB) / a.S);
  const int kb_end = static_cast<int>((static_cast<long long>(z + 1) * a.KB) / a.S);
  const int nkb = kb_end - kb_begin;
  const int wsc_row = n0 / 128;

  auto stage_ptr = [&](int s) { return smem + s * C::kStageBytes; };

  auto load_stage = [&](int s, int kb) {
    uint8_t* base = stage_ptr(s);
    const uint32_t sw = smem_u32(base);
    const uint32_t sx = sw + BN * 128;
    const uint32_t ss = sx + BM * 128;
    const size_t kofs = static_cast<size_t>(kb) * 128;
#pragma unroll
    for (int c = tid; c < BN * 8; c += T) {
      const int row = c >> 3, ch = c & 7;
      const int g = n0 + row;
      const bool ok = g < a.N;
      const uint8_t* src = a.wq + static_cast<size_t>(ok ? g : 0) * a.K + kofs + ch * 16;
      cp_async_16(sw + swz(row, ch), src, ok ? 16 : 0);
    }
#pragma unroll
    for (int c = tid; c < BM * 8; c += T) {
      const int row = c >> 3, ch = c & 7;
      const int g = m0 + row;
      const bool ok = g < a.M;
      const uint8_t* src = a.xq + static_cast<size_t>(ok ? g : 0) * a.K + kofs + ch * 16;
      cp_async_16(sx + swz(row, ch), src, ok ? 16 : 0);
    }
    for (int r = tid; r < BM; r += T) {
      const int g = m0 + r;
      const bool ok = g < a.M;
      cp_async_4(ss + r * 4, a.x_scale + static_cast<size_t>(ok ? g : 0) * a.KB + kb, ok ? 4 : 0);
    }
    if (tid == T - 1) cp_async_4(ss + BM * 4, a.w_scale + static_cast<size_t>(wsc_row) * a.KB + kb, 4);
  };

  float acc[MI][NJ][4];
  float tmp[MI][NJ][4];
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < NJ; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.f, tmp[i][j][r] = 0.f;

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < nkb) load_stage(s, kb_begin + s);
    cp_async_commit();
  }

  const int g4 = lane >> 2, t4 = lane & 3;
  for (int it = 0; it < nkb; ++it) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    {
      const int nxt = it + STAGES - 1;
      if (nxt < nkb) load_stage(nxt % STAGES, kb_begin + nxt);
      cp_async_commit();
    }
    const uint8_t* base = stage_ptr(it % STAGES);
    const uint32_t sw = smem_u32(base);
    const uint32_t sx = sw + BN * 128;
    const float* ss = reinterpret_cast<const float*>(base + (BN + BM) * 128);

#pragma unroll
    for (int ks = kw; ks < 4; ks += WK) {
      uint32_t af[MI][4];
#pragma unroll
      for (int i = 0; i < MI; ++i) {
        const int row = wn * C::kTN + i * 16 + (lane & 7) + ((lane >> 3) & 1) * 8;
        const int ch = 2 * ks + (lane >> 4);
        ldmatrix_x4(sw + swz(row, ch), af[i][0], af[i][1], af[i][2], af[i][3]);
      }
      uint32_t bf[NJ][2];
      if constexpr (NJ == 1) {
        const int row = wm * C::kTM + (lane & 7);
        const int ch = 2 * ks + ((lane >> 3) & 1);
        ldmatrix_x2(sx + swz(row, ch), bf[0][0], bf[0][1]);
      } else {
#pragma unroll
        for (int jp = 0; jp < NJ / 2; ++jp) {
          const int q = lane >> 3;
          const int row = wm * C::kTM + (2 * jp + (q >> 1)) * 8 + (lane & 7);
          const int ch = 2 * ks + (q & 1);
          ldmatrix_x4(sx + swz(row, ch), bf[2 * jp][0], bf[2 * jp][1], bf[2 * jp + 1][0],
                      bf[2 * jp + 1][1]);
        }
      }
#pragma unroll
      for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NJ; ++j) mma_e4m3_16832(tmp[i][j], af[i], bf[j][0], bf[j][1]);
    }
    // Promote this 128-K block's partial sum with its two scales.
    const float wsv = ss[BM];
#pragma unroll
    for (int j = 0; j < NJ; ++j) {
      const int ml = wm * C::kTM + j * 8 + t4 * 2;
      const float s0 = ss[ml] * wsv, s1 = ss[ml + 1] * wsv;
#pragma unroll
      for (int i = 0; i < MI; ++i) {
        acc[i][j][0] = fmaf(tmp[i][j][0], s0, acc[i][j][0]);
        acc[i][j][1] = fmaf(tmp[i][j][1], s1, acc[i][j][1]);
        acc[i][j][2] = fmaf(tmp[i][j][2], s0, acc[i][j][2]);
        acc[i][j][3] = fmaf(tmp[i][j][3], s1, acc[i][j][3]);
        tmp[i][j][0] = tmp[i][j][1] = tmp[i][j][2] = tmp[i][j][3] = 0.f;
      }
    }
  }
  cp_async_wait<0>();

  // Warps that split a stage's K steps: fold into the kw == 0 warp in fixed order kw = 1..WK-1.
  if constexpr (WK > 1) {
    __syncthreads();
    float* red = reinterpret_cast<float*>(smem);
    constexpr int kPer = MI * NJ * 4;
    const int slot = (warp / WK) * gpu::kWaveSize + lane;  // same for the WK warps of a group
    if (kw > 0) {
      float* dst = red + ((kw - 1) * (C::kWarps / WK) * gpu::kWaveSize + slot) * kPer;
#pragma unroll
      for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NJ; ++j)
#pragma unroll
          for (int r = 0; r < 4; ++r) dst[(i * NJ + j) * 4 + r] = acc[i][j][r];
    }
    __syncthreads();
    if (kw > 0) return;
    for (int q = 1; q < WK; ++q) {
      const float* src = red + ((q - 1) * (C::kWarps / WK) * gpu::kWaveSize + slot) * kPer;
#pragma unroll
      for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NJ; ++j)
#pragma unroll
          for (int r = 0; r < 4; ++r) acc[i][j][r] += src[(i * NJ + j) * 4 + r];
    }
  }

  auto for_each = [&](auto&& f) {
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
      for (int j = 0; j < NJ; ++j)
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const int n = n0 + wn * C::kTN + i * 16 + g4 + (r >> 1) * 8;
          const int m = m0 + wm * C::kTM + j * 8 + t4 * 2 + (r & 1);
          if (n < a.N && m < a.M) f(acc[i][j][r], m, n);
        }
  };

  if (a.S == 1) {
    for_each([&](float v, int m, int n) { a.y[static_cast<size_t>(m) * a.N + n] = gpu::f32_to_bf16_bits(v); });
    return;
  }

  const size_t plane = static_cast<size_t>(a.M) * a.N;
  for_each([&](float v, int m, int n) {
    __stcg(a.partials + z * plane + static_cast<size_t>(m) * a.N + n, v);
  });
  __threadfence();
  // Only the threads that own output (the kw == 0 warps) reach here when WK > 1.
  constexpr int kOwners = C::kThreads / WK;
  __shared__ int s_last;
  // Named barrier over the owning warps only (barrier 1; __syncthreads would wait for exited warps).
  asm volatile("bar.sync 1, %0;\n" ::"n"(kOwners));
  const int tile = blockIdx.y * gridDim.x + blockIdx.x;
  if (tid == 0) {
    const int prev = atomicAdd(a.counters + tile, 1);
    s_last = (prev == a.S - 1);
  }
  asm volatile("bar.sync 1, %0;\n" ::"n"(kOwners));
  if (!s_last) return;
  __threadfence();
  for_each([&](float, int m, int n) {
    const size_t off = static_cast<size_t>(m) * a.N + n;
    float sum = 0.f;
    for (int q = 0; q < a.S; ++q) sum += __ldcg(a.partials + q * plane + off);
    a.y[off] = gpu::f32_to_bf16_bits(sum);
  });
  if (tid == 0) a.counters[tile] = 0;
#endif
}

}  // namespace cktune::kernels::a8w8_blockscale::detail
