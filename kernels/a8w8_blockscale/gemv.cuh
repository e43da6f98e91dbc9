#pragma once
// Decode on the CUDA cores (`gemv`, `gemvh`): the weights read as a streaming copy reads them.
//
// At M <= 4 a decode GEMM is one read of the weights plus a little arithmetic. The tensor-core decode kernels
// (mma_direct.cuh, wgmma_swap.cuh) must load the weights in the MMA's fragment order: eight or sixteen rows of
// 64 bytes a warp instruction. Here every warp instruction reads 512 contiguous bytes of one weight row (16
// bytes a lane), the pattern of the calibration read in docs/perf.md, and the products are formed on the CUDA
// cores: lane l of a warp always takes bytes [16l, 16l + 16) of each 512-byte chunk, so its 16 activation bytes
// of a chunk serve all the rows the warp reads there.
//
// CTA: ROWS weight rows in groups of 8 (a warp's rows) x WK warps along K: warp (g, w) takes rows
// [8g, 8g + 8) of the CTA's rows and the chunks w, w + WK, w + 2 WK, ... (RING chunks of its 8 rows in flight
// in registers). Each lane's 16 bytes of a chunk lie in one 128-K scale block (16 divides 128), so a block-scale
// partial of 16 products is promoted with the two scales of that block; the per-token modes add the partials and
// scale the finished sum. At the end each warp's 8 x TM sums are reduced over its lanes by a transposing
// butterfly (TM * 8 - 1 + (5 - log2(TM * 8)) shuffles) and over its WK warps through shared memory, both in a
// fixed order: deterministic, one launch, no workspace. Weight rows past N read row N - 1 and are not stored;
// tokens past M are skipped (warp-uniform branches).
//
// Products (kernels/common/fp8_dot.cuh): `gemv` (H16 = false) sums a lane's 16 products in fp32, `gemvh` (H16 =
// true) as f16 pairs after scaling the lane's activations by a power of two (docs/arch/numerics.md); the int8
// modes take `dp4a` into exact s32 sums. sc[m] = 1 in the per-token modes, whose scales multiply the finished sum.
//
// Registers (H200, docs/perf.md 2026-11-30 18:10): a 512-thread tile-1 CTA fits twice an SM only at <= 64 registers,
// which ptxas picks by itself here. Naming a minimum CTA count in __launch_bounds__, even 1, gave it 74 registers,
// one CTA an SM, and 1 x 2112 x 7168 took 10.43 us instead of 8.93. Past one token the CUDA cores lose to the MMA
// decode kernels however the tokens are held (token tiles at 64 to 126 registers, or one token after another at
// tile 1's registers): each token adds ~1.5 us of instructions at 2112 x 7168, so the table's rows take M = 1.
#include <cstdint>
#include <type_traits>

#include "../common/fp8_dot.cuh"
#include "../common/memory.hpp"
#include "../common/numeric.hpp"
#include "a8w8_blockscale.hpp"
#include "mma_splitk.cuh"

namespace cktune::kernels::a8w8_blockscale::detail {

// TM: token tile (M <= TM), ROWS: weight rows a CTA (8 a warp), WARPS: warps a CTA, RING: chunks a warp has in
// flight, H16: sums of f16 products (fp8 only).
template <int TM, int ROWS, int WARPS, int RING, bool H16, Scaling SC = Scaling::Block128>
struct GemvCfg {
  static constexpr int kTM = TM, kRows = ROWS, kWarps = WARPS, kRing = RING;
  static constexpr int kRW = 8;                 // weight rows a warp
  static constexpr int kRG = ROWS / kRW;        // row groups a CTA
  static constexpr int kWK = WARPS / kRG;       // warps along K a row group
  static constexpr int kV = TM * kRW;           // sums a warp
  static constexpr int kThreads = WARPS * gpu::kWaveSize;
  static constexpr int kChunk = 512;            // K bytes a warp instruction
  static constexpr bool kBlockScales = SC == Scaling::Block128;
  static constexpr bool kInt8 = is_int8(SC);
  static constexpr bool kH16 = H16;
  static_assert(ROWS % kRW == 0 && WARPS % kRG == 0 && kWK >= 1, "whole row groups, whole warps a group");
  static_assert(TM == 1 || TM == 2 || TM == 4 || TM == 8, "token tiles of 1, 2, 4 or 8");
  static_assert(!(H16 && is_int8(SC)), "int8 sums are exact: no f16 form");
  static_assert(!is_preshuffled(SC), "whole rows of W: the row-major layout only");
};

template <class C>
__global__ void __launch_bounds__(C::kThreads) gemv_kernel(const MmaArgs a) {
#if defined(CKTUNE_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  using namespace cktune::gpu::fp8dot;
  constexpr int TM = C::kTM, RW = C::kRW, R = C::kRing, WK = C::kWK, V = C::kV, CH = C::kChunk;
  constexpr int VL = V >= 32 ? V / 32 : 1;  // sums a lane holds after the butterfly
  using Acc = std::conditional_t<C::kInt8, int, float>;
  __shared__ float red[WK > 1 ? C::kRG * WK * V : 1];

  const int lane = threadIdx.x % gpu::kWaveSize;
  const int warp = threadIdx.x / gpu::kWaveSize;
  const int rg = warp / WK, wk = warp % WK;
  const int row0 = blockIdx.x * C::kRows + rg * RW;
  const int chunks = (a.K + CH - 1) / CH;
  const int M = min(a.M, TM);
  const size_t lofs = static_cast<size_t>(lane) * 16;
  const uint8_t* wrow[RW];
#pragma unroll
  for (int r = 0; r < RW; ++r) wrow[r] = a.wq + static_cast<size_t>(min(row0 + r, a.N - 1)) * a.K + lofs;
  const float* wsc = a.w_scale + static_cast<size_t>(min(row0, a.N - 1) / 128) * a.KB;

  uint4 wv[R][RW];
  auto load = [&](int s, int c) {
    const size_t ofs = static_cast<size_t>(c) * CH;
    const bool in = ofs + lofs < static_cast<size_t>(a.K);  // K % 128 == 0: whole lanes in or out
#pragma unroll
    for (int r = 0; r < RW; ++r) wv[s][r] = in ? gpu::load_stream_16(wrow[r] + ofs) : make_uint4(0, 0, 0, 0);
  };

  Acc acc[TM][RW];
#pragma unroll
  for (int m = 0; m < TM; ++m)
#pragma unroll
    for (int r = 0; r < RW; ++r) acc[m][r] = Acc(0);

  auto compute = [&](int s, int c) {
    const size_t k = static_cast<size_t>(c) * CH + lofs;
    if (k >= static_cast<size_t>(a.K)) return;  // past K in the last chunk (whole groups of 8 lanes)
    const int kb = static_cast<int>(k / 128);
    float sc[TM];
#pragma unroll
    for (int m = 0; m < TM; ++m) sc[m] = 1.f;
    if constexpr (C::kBlockScales) {
      const float ws = __ldg(wsc + kb);
#pragma unroll
      for (int m = 0; m < TM; ++m)
        if (m < M) sc[m] = ws * __ldg(a.x_scale + static_cast<size_t>(m) * a.KB + kb);
    }
    // The chunk's activation bytes of each token (L1 hits after the first warp), in the form the products take.
    uint4 xv[TM];
#pragma unroll
    for (int m = 0; m < TM; ++m)
      xv[m] = m < M ? __ldg(reinterpret_cast<const uint4*>(a.xq + static_cast<size_t>(m) * a.K + k))
                    : make_uint4(0, 0, 0, 0);
    if constexpr (C::kInt8) {
#pragma unroll
      for (int r = 0; r < RW; ++r) {
        const uint4 w = wv[s][r];
#pragma unroll
        for (int m = 0; m < TM; ++m) {
          if (m >= M) continue;
          int d = acc[m][r];
          d = __dp4a(static_cast<int>(w.x), static_cast<int>(xv[m].x), d);
          d = __dp4a(static_cast<int>(w.y), static_cast<int>(xv[m].y), d);
          d = __dp4a(static_cast<int>(w.z), static_cast<int>(xv[m].z), d);
          d = __dp4a(static_cast<int>(w.w), static_cast<int>(xv[m].w), d);
          acc[m][r] = d;
        }
      }
    } else if constexpr (C::kH16) {
      HalfActs xh[TM];
#pragma unroll
      for (int m = 0; m < TM; ++m) xh[m] = half_acts(xv[m]);
#pragma unroll
      for (int r = 0; r < RW; ++r) {
        uint32_t wh[8];
        to_f16x2(wv[s][r], wh);
#pragma unroll
        for (int m = 0; m < TM; ++m)
          if (m < M) acc[m][r] = fmaf(dot_half(wh, xh[m]), sc[m] * xh[m].unscale, acc[m][r]);
      }
    } else {
      float xf[TM][16];
#pragma unroll
      for (int m = 0; m < TM; ++m) to_f32(xv[m], xf[m]);
#pragma unroll
      for (int r = 0; r < RW; ++r) {
        float wf[16];
        to_f32(wv[s][r], wf);
#pragma unroll
        for (int m = 0; m < TM; ++m)
          if (m < M) acc[m][r] = fmaf(dot_f32(wf, xf[m]), sc[m], acc[m][r]);
      }
    }
  };

  gpu::register_ring<R>(wk, chunks, WK, load, [] {}, compute);

  // Over the lanes (value index m * 8 + r), then over the WK warps of the row group, in fixed orders. (An int8
  // lane's sum is exact in s32, |sum| <= 127^2 K; from here on it is an fp32 value like the others.)
  float v[V];
#pragma unroll
  for (int m = 0; m < TM; ++m)
#pragma unroll
    for (int r = 0; r < RW; ++r) v[m * RW + r] = static_cast<float>(acc[m][r]);
  transpose_reduce<V>(v, lane);
  // Sum `idx` (token idx / 8, row idx % 8) of row group g.
  auto store = [&](int g, int idx, float sum) {
    const int m = idx / RW, n = blockIdx.x * C::kRows + g * RW + idx % RW;
    if (m >= M || n >= a.N) return;
    if constexpr (!C::kBlockScales) sum *= __ldg(a.x_scale + m) * __ldg(a.w_scale + n);
    a.y[static_cast<size_t>(m) * a.N + n] = gpu::f32_to_bf16_bits(sum);
  };
  if constexpr (WK == 1) {
    if (transposed_owner<V>(lane))
#pragma unroll
      for (int i = 0; i < VL; ++i) store(rg, transposed_index<V>(i, lane), v[i]);
  } else {
    if (transposed_owner<V>(lane))
#pragma unroll
      for (int i = 0; i < VL; ++i) red[(rg * WK + wk) * V + transposed_index<V>(i, lane)] = v[i];
    __syncthreads();
    for (int t = threadIdx.x; t < C::kRG * V; t += C::kThreads) {
      const int g = t / V, idx = t % V;
      float sum = 0.f;
      for (int w = 0; w < WK; ++w) sum += red[(g * WK + w) * V + idx];
      store(g, idx, sum);
    }
  }
#endif
}

}  // namespace cktune::kernels::a8w8_blockscale::detail
