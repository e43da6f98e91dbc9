#pragma once
// Decode kernel on the 16x8x32 warp MMA with its operands loaded straight into registers (`mmad`).
//
// Like mma_splitk.cuh it computes Y^T = W * X^T (16 weight rows on the MMA's row side, 8 tokens on its
// column side), but the weights never go through shared memory: every lane loads its own 16-byte pieces of
// them with plain global loads into a ring of registers, so a warp has RING k-blocks of 16 rows
// (2 KB each) in flight with no cp.async groups, barriers or ldmatrix between the loads and the MMA.
// A decode GEMM reads each weight byte once and does little arithmetic with it; what decides its speed
// is how many bytes are in flight per SM, and here that is registers, not shared memory.
//
// Fragments: an MMA needs, in lane (g = lane / 4, t = lane % 4), the K positions {4t..4t+3} and
// {16+4t..16+4t+3} of rows g and g+8 (A) and of token g (B). Which bytes of the row those positions are
// does not matter, as long as A and B agree. So lane t loads bytes [16t, 16t+16) and [64+16t, 64+16t+16)
// of each 128-byte k-block: each load instruction of the warp then covers two whole 32-byte sectors of
// eight rows, and the four MMAs of a k-block take these 32 bytes 8 at a time (bytes 0-3 as positions
// 4t.., bytes 4-7 as 16+4t..). Tokens take the same bytes of their row.
//
// CTA: 16 weight rows (one MMA row tile) x WK warps; warp w takes k-blocks w, w+WK, w+2*WK, ... (the CTA
// reads WK neighbouring k-blocks of its rows at a time). The token rows (M <= 16, all of K) are copied into
// shared memory once, while the first weights are in flight, so the ring holds weights only. Each 128-K
// block's partial is promoted with its two scales (block mode) or added unscaled (per-token modes; scales on
// the finished sum). The warps' sums are added through shared memory in a fixed order: deterministic, one
// launch, no workspace. Tokens past M read row M-1 and weight rows past N read row N-1; neither is stored.
//
// Where the time goes (H200, docs/perf.md 2026-11-25): at 1 x 2112 x 7168 the kernel takes ~10.5 us against
// 8.2 for one streaming read of the same weights, and ~9.1 with its arithmetic left out. On sm_90 the fp8
// mma.sync runs as conversions to f16 (F2FP, 12 per MMA here) and two f16 MMAs; four independent partials a
// k-block in place of one chain did not shorten it, so the conversions, not the MMAs' latency, are the likely
// cost (not measured further). wgmma (wgmma_swap.cuh) reads fp8 natively but through a TMA ring.
#include <cstdint>
#include <type_traits>

#include "../common/arch_sm90.hpp"
#include "../common/memory.hpp"
#include "../common/numeric.hpp"
#include "a8w8_blockscale.hpp"
#include "mma_splitk.cuh"
#include "splitk.cuh"

namespace cktune::kernels::a8w8_blockscale::detail {

// TM: token tile (8 or 16: one or two MMA column tiles), WK: warps along K, RING: k-blocks a warp has in
// flight.
template <int TM, int WK, int RING, Scaling SC = Scaling::Block128>
struct DirectCfg {
  static constexpr int kTM = TM, kNJ = TM / 8, kWK = WK, kRing = RING;
  static constexpr int kRows = 16;  // weight rows a CTA
  static constexpr int kWarps = WK;
  static constexpr int kThreads = WK * gpu::kWaveSize;
  static constexpr int kRedBytes = WK * kRows * TM * 4;  // the parked sums; the token rows follow
  static constexpr bool kBlockScales = SC == Scaling::Block128;
  static constexpr bool kPreshuffledW = is_preshuffled(SC);
  static constexpr bool kInt8 = is_int8(SC);
  static_assert(TM == 8 || TM == 16, "token tiles are one or two MMA column tiles");
  static_assert(RING >= 1 && WK >= 1 && WK <= 16, "ring depth and warps");
};

// Bytes between the token rows in shared memory: K, plus 64 so that the two rows a quarter of the warp
// reads at once fall in different halves of the banks (with the lanes' 16-byte offsets, no conflicts).
__host__ __device__ inline int direct_x_pitch(int KB) { return KB * 128 + 64; }

// Dynamic shared memory of a launch of `warps` warps and a token tile of `tm`: the parked sums and min(M, tm)
// token rows. The launch asks for it; why_not refuses a shape that needs more than a CTA can have.
__host__ __device__ inline size_t direct_smem_bytes(int warps, int tm, int M, int K) {
  return static_cast<size_t>(warps) * 16 * tm * 4 + static_cast<size_t>(M < tm ? M : tm) * direct_x_pitch(K / 128);
}

template <class C>
__global__ void __launch_bounds__(C::kThreads) mma_direct_kernel(const MmaArgs a) {
#if defined(CKTUNE_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  using namespace cktune::gpu::sm90;
  constexpr int WK = C::kWK, R = C::kRing, NJ = C::kNJ, TM = C::kTM;
  using Part = std::conditional_t<C::kInt8, int, float>;
  // Shared memory: each warp's 16 x TM sum, parked for the reduction over the warps and the cluster's CTAs
  // ([WK][16][TM] floats), then the CTA's token rows of its K slice (direct_x_pitch() bytes apart).
  extern __shared__ __align__(16) float red[];
  uint8_t* const xsm = reinterpret_cast<uint8_t*>(red) + C::kRedBytes;

  const int lane = threadIdx.x % gpu::kWaveSize;
  const int warp = threadIdx.x / gpu::kWaveSize;
  const int g = lane >> 2, t = lane & 3;
  const int n0 = blockIdx.x * C::kRows;
  const int KB = a.KB;
  const int kb_end = KB, kb_first = warp;
  const int xrows = min(a.M, TM);
  const int xpitch = direct_x_pitch(KB);
  // Per-token modes read their scales only at the end: ask for the tile's slices in L2 first.
  if constexpr (!C::kBlockScales)
    if (warp == WK - 1) {
      gpu::prefetch_floats_l2(a.x_scale, a.M, lane);
      gpu::prefetch_floats_l2(a.w_scale + n0, min(C::kRows, a.N - n0), lane);
    }

  // This lane's two weight rows and its token row of each column tile (in shared memory), clamped.
  const int wr[2] = {min(n0 + g, a.N - 1), min(n0 + g + 8, a.N - 1)};
  const uint8_t* xrow[NJ];
#pragma unroll
  for (int j = 0; j < NJ; ++j)
    xrow[j] = xsm + min(j * 8 + g, xrows - 1) * xpitch + t * 16;
  // Byte `kofs` (a multiple of 16) of weight row `r`.
  auto w_at = [&](int r, size_t kofs) -> const uint8_t* {
    if constexpr (C::kPreshuffledW)  // 16x16-byte tiles: row r's 16 bytes of K chunk kofs/16
      return a.wq + static_cast<size_t>(r >> 4) * 16 * a.K + (kofs >> 4) * 256 + (r & 15) * 16;
    else
      return a.wq + static_cast<size_t>(r) * a.K + kofs;
  };
  const float* wsc = a.w_scale + static_cast<size_t>(n0 / 128) * KB;

  // The ring: slot s holds k-block kb_first + (s + i*R)*WK. wv[s][2*row + half].
  uint4 wv[R][4];
  float ws[R], xs[R][NJ][2];
  auto load = [&](int s, int kb) {
    const size_t kofs = static_cast<size_t>(kb) * 128 + t * 16;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      wv[s][h] = gpu::load_stream_16(w_at(wr[0], kofs + h * 64));
      wv[s][2 + h] = gpu::load_stream_16(w_at(wr[1], kofs + h * 64));
    }
    if constexpr (C::kBlockScales) {
      ws[s] = __ldg(wsc + kb);
#pragma unroll
      for (int j = 0; j < NJ; ++j)
#pragma unroll
        for (int q = 0; q < 2; ++q)
          xs[s][j][q] = __ldg(a.x_scale + static_cast<size_t>(min(j * 8 + 2 * t + q, a.M - 1)) * KB + kb);
    }
  };

  float acc[NJ][4];
#pragma unroll
  for (int j = 0; j < NJ; ++j)
#pragma unroll
    for (int r = 0; r < 4; ++r) acc[j][r] = 0.f;

  auto compute = [&](int s, int kb) {
    uint4 xv[NJ][2];
#pragma unroll
    for (int j = 0; j < NJ; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h)
        xv[j][h] = *reinterpret_cast<const uint4*>(xrow[j] + static_cast<size_t>(kb) * 128 + h * 64);
    Part c[NJ][4];
#pragma unroll
    for (int j = 0; j < NJ; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) c[j][r] = Part(0);
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int p = 0; p < 2; ++p) {
        const uint32_t* r0 = reinterpret_cast<const uint32_t*>(&wv[s][h]);
        const uint32_t* r1 = reinterpret_cast<const uint32_t*>(&wv[s][2 + h]);
        const uint32_t af[4] = {r0[2 * p], r1[2 * p], r0[2 * p + 1], r1[2 * p + 1]};
#pragma unroll
        for (int j = 0; j < NJ; ++j) {
          const uint32_t* xb = reinterpret_cast<const uint32_t*>(&xv[j][h]);
          if constexpr (C::kInt8) mma_s8_16832(c[j], af, xb[2 * p], xb[2 * p + 1]);
          else mma_e4m3_16832(c[j], af, xb[2 * p], xb[2 * p + 1]);
        }
      }
#pragma unroll
    for (int j = 0; j < NJ; ++j) {
      const float s0 = C::kBlockScales ? ws[s] * xs[s][j][0] : 1.f;
      const float s1 = C::kBlockScales ? ws[s] * xs[s][j][1] : 1.f;
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[j][r] = fmaf(static_cast<float>(c[j][r]), r & 1 ? s1 : s0, acc[j][r]);
    }
  };

  // While the first weights are on their way: the token rows into shared memory.
  auto copy_tokens = [&] {
    const int chunks = KB * 8;  // 16-byte pieces a row
    for (int i = threadIdx.x; i < xrows * chunks; i += C::kThreads) {
      const int row = i / chunks, c = i % chunks;
      cp_async_16(smem_u32(xsm + row * xpitch + c * 16), a.xq + static_cast<size_t>(row) * a.K + c * 16, 16);
    }
    cp_async_commit();
    cp_async_wait<0>();
    __syncthreads();
  };
  gpu::register_ring<R>(kb_first, kb_end, WK, load, copy_tokens, compute);

  // Per-token modes: the scales multiply the sum (before the reductions, which are linear).
  if constexpr (!C::kBlockScales) {
#pragma unroll
    for (int j = 0; j < NJ; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int m = min(j * 8 + 2 * t + (r & 1), a.M - 1), n = wr[r >> 1];
        acc[j][r] *= __ldg(a.x_scale + m) * __ldg(a.w_scale + n);
      }
  }
  // Park (row g / g+8 of the 16, token column), then one pass sums the warps' planes in a fixed order and
  // stores Y (splitk.cuh's reduction, for a "cluster" of this one CTA).
#pragma unroll
  for (int j = 0; j < NJ; ++j)
#pragma unroll
    for (int r = 0; r < 4; ++r) red[(warp * C::kRows + g + (r >> 1) * 8) * TM + j * 8 + 2 * t + (r & 1)] = acc[j][r];
  cluster_splitk_reduce<C::kRows, TM, TM, WK, true>(red, true, threadIdx.x, C::kThreads, 1, 0, n0, a.M, a.N, a.y);
#endif
}

}  // namespace cktune::kernels::a8w8_blockscale::detail
