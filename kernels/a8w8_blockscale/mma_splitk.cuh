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
#include <type_traits>

#include "../common/arch_sm90.hpp"
#include "../common/numeric.hpp"
#include "a8w8_blockscale.hpp"
#include "splitk.cuh"

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
  int cluster;      // 1: the S CTAs of a tile form a thread-block cluster and reduce through DSMEM
};

// SC: Block128 applies the two block scales to each 128-K partial (a8w8_blockscale). The per-token
// modes (a8w8, a8w8_bpreshuffle) add each 128-K partial unscaled and multiply the finished sum once by
// x_scale[m] * w_scale[n]; PerTokenPreshuffledW reads W in AITER's preshuffled layout.
template <int BN, int BM, int WN, int WM, int WK, int STAGES, int KBS = 1, Scaling SC = Scaling::Block128>
struct MmaCfg {
  static constexpr int kBN = BN, kBM = BM, kWN = WN, kWM = WM, kWK = WK, kStages = STAGES, kKbs = KBS;
  static constexpr bool kBlockScales = SC == Scaling::Block128;
  static constexpr bool kPreshuffledW = is_preshuffled(SC);
  static constexpr bool kInt8 = is_int8(SC);
  static_assert(!kPreshuffledW || BN % 16 == 0, "preshuffled tiles are 16 rows");
  static constexpr int kRowBytes = 128 * KBS;  // K bytes of one row in a stage
  static constexpr int kWarps = WN * WM * WK;
  static constexpr int kThreads = kWarps * gpu::kWaveSize;
  static constexpr int kTN = BN / WN;  // warp tile, W rows
  static constexpr int kTM = BM / WM;  // warp tile, X rows
  static constexpr int kMI = kTN / 16;
  static constexpr int kNJ = kTM / 8;
  static constexpr int kScaleOfs = (BN + BM) * kRowBytes;
  static constexpr int kStageBytes = (kScaleOfs + KBS * (BM + 4) * 4 + 127) / 128 * 128;
  static constexpr int kSmemBytes = kStageBytes * STAGES;
  static_assert(kTN % 16 == 0 && kTM % 8 == 0, "warp tile must be whole MMA tiles");
  static_assert(4 % WK == 0, "K-split warps must divide the four 32-K steps of a stage");
  static_assert(128 % BN == 0, "a CTA tile must sit inside one 128-row weight-scale block");
  static_assert(kNJ == 1 || kNJ % 2 == 0, "B fragments are loaded in pairs");
  static_assert((WK - 1) * BN * BM * 4 <= kSmemBytes, "cross-warp reduction must fit in smem");
};

// Byte offset of 16-byte chunk `ch` of row `row` in a [rows][128 B] tile: XOR swizzle so that the
// eight rows an ldmatrix phase reads at one logical chunk hit eight different bank groups.
template <int kRowBytes>
__device__ __forceinline__ int swz(int row, int ch) { return row * kRowBytes + ((ch ^ (row & 7)) << 4); }

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
  // Per-token modes read their scales only at the end: the last warp asks for the tile's slices in L2 first.
  if constexpr (!C::kBlockScales)
    if (warp == T / gpu::kWaveSize - 1) {
      gpu::prefetch_floats_l2(a.x_scale + m0, min(BM, a.M - m0), lane);
      gpu::prefetch_floats_l2(a.w_scale + n0, min(BN, a.N - n0), lane);
    }

  auto stage_ptr = [&](int s) { return smem + s * C::kStageBytes; };

  constexpr int KBS = C::kKbs, RB = C::kRowBytes, CH = RB / 16;
  // Stage t holds k-blocks kb_begin + t*KBS ... (+KBS-1); blocks past kb_end load as zeros with
  // zero scales, so they add nothing.
  auto load_stage = [&](int s, int t) {
    uint8_t* base = stage_ptr(s);
    const uint32_t sw = smem_u32(base);
    const uint32_t sx = sw + BN * RB;
    const uint32_t ss = sw + C::kScaleOfs;
    const int kb0 = kb_begin + t * KBS;
    const int kvalid = min(KBS, kb_end - kb0);  // >= 1
    const size_t kofs = static_cast<size_t>(kb0) * 128;
#pragma unroll
    for (int c = tid; c < BN * CH; c += T) {
      // Row-major: consecutive threads take a row's consecutive chunks. Preshuffled: they take the 16 rows
      // of one 16x16-byte tile (256 contiguous bytes), so a warp's copies still cover whole segments.
      const int row = C::kPreshuffledW ? (c / (16 * CH)) * 16 + c % 16 : c / CH;
      const int ch = C::kPreshuffledW ? (c / 16) % CH : c % CH;
      const int g = n0 + row;
      const bool ok = g < a.N && ch < kvalid * 8;
      const int gr = g < a.N ? g : 0;
      const size_t col = kofs + (ok ? ch * 16 : 0);
      // Preshuffled: 16x16-byte tiles, 16 rows x 16 K contiguous per tile, tiles by (n/16, k/16).
      const uint8_t* src = C::kPreshuffledW
                               ? a.wq + static_cast<size_t>(gr >> 4) * 16 * a.K + (col >> 4) * 256 + (gr & 15) * 16
                               : a.wq + static_cast<size_t>(gr) * a.K + col;
      cp_async_16(sw + swz<RB>(row, ch), src, ok ? 16 : 0);
    }
#pragma unroll
    for (int c = tid; c < BM * CH; c += T) {
      const int row = c / CH, ch = c % CH;
      const int g = m0 + row;
      const bool ok = g < a.M && ch < kvalid * 8;
      const uint8_t* src = a.xq + static_cast<size_t>(g < a.M ? g : 0) * a.K + kofs + (ok ? ch * 16 : 0);
      cp_async_16(sx + swz<RB>(row, ch), src, ok ? 16 : 0);
    }
    if constexpr (C::kBlockScales) {  // the per-token modes apply their scales after the loop
      for (int r = tid; r < KBS * BM; r += T) {
        const int kk = r / BM, row = r % BM;
        const int g = m0 + row;
        const bool ok = g < a.M && kk < kvalid;
        cp_async_4(ss + r * 4, a.x_scale + static_cast<size_t>(g < a.M ? g : 0) * a.KB + (ok ? kb0 + kk : 0), ok ? 4 : 0);
      }
      if (tid >= T - KBS) {
        const int kk = tid - (T - KBS);
        const bool ok = kk < kvalid;
        cp_async_4(ss + (KBS * BM + kk) * 4, a.w_scale + static_cast<size_t>(wsc_row) * a.KB + (ok ? kb0 + kk : 0),
                   ok ? 4 : 0);
      }
    }
  };
  const int nst = (nkb + KBS - 1) / KBS;

  float acc[MI][NJ][4];
  // A 128-K block's tensor-core partial: fp32 for fp8, exact s32 for int8.
  using Part = std::conditional_t<C::kInt8, int, float>;
  Part tmp[MI][NJ][4];
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < NJ; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.f, tmp[i][j][r] = Part(0);

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < nst) load_stage(s, s);
    cp_async_commit();
  }

  const int g4 = lane >> 2, t4 = lane & 3;
  for (int it = 0; it < nst; ++it) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    {
      const int nxt = it + STAGES - 1;
      if (nxt < nst) load_stage(nxt % STAGES, nxt);
      cp_async_commit();
    }
    const uint8_t* base = stage_ptr(it % STAGES);
    const uint32_t sw = smem_u32(base);
    const uint32_t sx = sw + BN * RB;
#pragma unroll
    for (int kk = 0; kk < KBS; ++kk) {
    const float* ss = reinterpret_cast<const float*>(base + C::kScaleOfs) + kk * BM;
#pragma unroll
    for (int ks = kw; ks < 4; ks += WK) {
      uint32_t af[MI][4];
#pragma unroll
      for (int i = 0; i < MI; ++i) {
        const int row = wn * C::kTN + i * 16 + (lane & 7) + ((lane >> 3) & 1) * 8;
        const int ch = kk * 8 + 2 * ks + (lane >> 4);
        ldmatrix_x4(sw + swz<RB>(row, ch), af[i][0], af[i][1], af[i][2], af[i][3]);
      }
      uint32_t bf[NJ][2];
      if constexpr (NJ == 1) {
        const int row = wm * C::kTM + (lane & 7);
        const int ch = kk * 8 + 2 * ks + ((lane >> 3) & 1);
        ldmatrix_x2(sx + swz<RB>(row, ch), bf[0][0], bf[0][1]);
      } else {
#pragma unroll
        for (int jp = 0; jp < NJ / 2; ++jp) {
          const int q = lane >> 3;
          const int row = wm * C::kTM + (2 * jp + (q >> 1)) * 8 + (lane & 7);
          const int ch = kk * 8 + 2 * ks + (q & 1);
          ldmatrix_x4(sx + swz<RB>(row, ch), bf[2 * jp][0], bf[2 * jp][1], bf[2 * jp + 1][0],
                      bf[2 * jp + 1][1]);
        }
      }
#pragma unroll
      for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NJ; ++j) {
          if constexpr (C::kInt8) mma_s8_16832(tmp[i][j], af[i], bf[j][0], bf[j][1]);
          else mma_e4m3_16832(tmp[i][j], af[i], bf[j][0], bf[j][1]);
        }
    }
    // Promote this 128-K block's partial sum with its two scales.
    const float wsv = C::kBlockScales ? reinterpret_cast<const float*>(base + C::kScaleOfs)[KBS * BM + kk] : 1.f;
#pragma unroll
    for (int j = 0; j < NJ; ++j) {
      const int ml = wm * C::kTM + j * 8 + t4 * 2;
      const float s0 = C::kBlockScales ? ss[ml] * wsv : 1.f, s1 = C::kBlockScales ? ss[ml + 1] * wsv : 1.f;
#pragma unroll
      for (int i = 0; i < MI; ++i) {
        acc[i][j][0] = fmaf(static_cast<float>(tmp[i][j][0]), s0, acc[i][j][0]);
        acc[i][j][1] = fmaf(static_cast<float>(tmp[i][j][1]), s1, acc[i][j][1]);
        acc[i][j][2] = fmaf(static_cast<float>(tmp[i][j][2]), s0, acc[i][j][2]);
        acc[i][j][3] = fmaf(static_cast<float>(tmp[i][j][3]), s1, acc[i][j][3]);
        tmp[i][j][0] = tmp[i][j][1] = tmp[i][j][2] = tmp[i][j][3] = Part(0);
      }
    }
    }  // kk
  }
  cp_async_wait<0>();

  if constexpr (!C::kBlockScales) {
    // Per-token / per-channel: the scales multiply the finished sum (before any split-K reduction,
    // which is linear). Rows past M and columns past N get scale 0 and are never stored.
#pragma unroll
    for (int j = 0; j < NJ; ++j)
#pragma unroll
      for (int q = 0; q < 2; ++q) {
        const int m = m0 + wm * C::kTM + j * 8 + t4 * 2 + q;
        const float xs = m < a.M ? __ldg(a.x_scale + m) : 0.f;
#pragma unroll
        for (int i = 0; i < MI; ++i)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int n = n0 + wn * C::kTN + i * 16 + g4 + h * 8;
            acc[i][j][h * 2 + q] *= xs * (n < a.N ? __ldg(a.w_scale + n) : 0.f);
          }
      }
  }

#if defined(CKTUNE_CUDA)
  if (a.S > 1 && a.cluster) {
    // NVIDIA split-K: the S CTAs of this tile are one cluster (dims 1x1xS). Every warp parks its
    // fp32 partial in its own CTA's shared memory as [kw][m][n]; cluster_splitk_reduce sums them.
    __syncthreads();  // all warps are done with the pipeline buffers
    float* red = reinterpret_cast<float*>(smem);
    constexpr int E = BN * BM;
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
      for (int j = 0; j < NJ; ++j)
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const int nl = wn * C::kTN + i * 16 + g4 + (r >> 1) * 8;
          const int ml = wm * C::kTM + j * 8 + t4 * 2 + (r & 1);
          red[kw * E + ml * BN + nl] = acc[i][j][r];
        }
    cluster_splitk_reduce<BM, BN, BN, WK>(red, true, tid, T, a.S, m0, n0, a.M, a.N, a.y);
    return;
  }
#endif
  static_assert(WK * BN * BM * 4 <= C::kSmemBytes, "cluster reduction buffer must fit in smem");

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

  splitk_finish<C::kThreads / WK>(for_each, a.partials, a.counters, z, a.S, blockIdx.y * gridDim.x + blockIdx.x,
                                  a.M, a.N, a.y);
#endif
}

}  // namespace cktune::kernels::a8w8_blockscale::detail
