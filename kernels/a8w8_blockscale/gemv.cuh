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
// Products: fp8 pairs become f16 pairs (`cvt.rn.f16x2.e4m3x2`, exact). `gemv` (H16 = false) then widens both to
// fp32 and sums the 16 products of a lane and chunk in fp32 (what the reference does, up to the order).
// `gemvh` (H16 = true) multiplies and sums them as f16 pairs, 8 products a half, and widens only the sum: a third
// of the instructions. Each lane first scales its 16 activations of a token by a power of two that brings the
// largest to [1, 2) (exact), so no sum can overflow and the large products keep 11 bits; the power of two returns
// in the fp32 scale. ~11 bits are kept a partial of 8 products (docs/arch/numerics.md). The int8 modes
// take `dp4a` into exact s32 sums.
#include <cstdint>
#include <type_traits>

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

#if defined(CKTUNE_CUDA)
namespace gemv {
// Two fp8 e4m3 pairs (the four bytes of u) as two f16 pairs; exact.
__device__ __forceinline__ void e4m3x4_to_f16x2(uint32_t u, uint32_t& lo, uint32_t& hi) {
  asm("{\n .reg .b16 a, b;\n mov.b32 {a, b}, %2;\n cvt.rn.f16x2.e4m3x2 %0, a;\n cvt.rn.f16x2.e4m3x2 %1, b;\n}"
      : "=r"(lo), "=r"(hi)
      : "r"(u));
}
__device__ __forceinline__ float2 f16x2_to_f32(uint32_t h) {
  float2 f;
  asm("{\n .reg .b16 a, b;\n mov.b32 {a, b}, %2;\n cvt.f32.f16 %0, a;\n cvt.f32.f16 %1, b;\n}"
      : "=f"(f.x), "=f"(f.y)
      : "r"(h));
  return f;
}
__device__ __forceinline__ uint32_t hfma2(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t d;
  asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}
__device__ __forceinline__ uint32_t hmul2(uint32_t a, uint32_t b) {
  uint32_t d;
  asm("mul.rn.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}
// 16 fp8 codes as 16 floats (exact).
__device__ __forceinline__ void fp8x16_to_f32(const uint4& v, float (&f)[16]) {
  const uint32_t u[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    uint32_t lo, hi;
    e4m3x4_to_f16x2(u[i], lo, hi);
    const float2 a = f16x2_to_f32(lo), b = f16x2_to_f32(hi);
    f[4 * i] = a.x, f[4 * i + 1] = a.y, f[4 * i + 2] = b.x, f[4 * i + 3] = b.y;
  }
}
// 16 fp8 codes as 8 f16 pairs (exact).
__device__ __forceinline__ void fp8x16_to_f16x2(const uint4& v, uint32_t (&h)[8]) {
  const uint32_t u[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) e4m3x4_to_f16x2(u[i], h[2 * i], h[2 * i + 1]);
}

// Sums v[0..V) of the 32 lanes of a warp, each lane ending with max(V / 32, 1) of the sums: after the step at
// offset o a lane keeps the half of its values that its bit o selects, plus its partner's copy of that half. Lane
// l then holds the sum of value index i + sum over the halving steps of bit(o) * (count at that step) / 2.
template <int V>
__device__ __forceinline__ void transpose_reduce(float (&v)[V], int lane) {
  int n = V;
#pragma unroll
  for (int o = 16; o >= 1; o /= 2) {
    if (n > 1) {
      const bool up = (lane & o) != 0;
      const int half = n / 2;
#pragma unroll
      for (int i = 0; i < V / 2; ++i) {
        if (i < half) {
          const float send = up ? v[i] : v[i + half];
          const float keep = up ? v[i + half] : v[i];
          v[i] = keep + __shfl_xor_sync(0xffffffffu, send, o);
        }
      }
      n = half;
    } else {
      v[0] += __shfl_xor_sync(0xffffffffu, v[0], o);
    }
  }
}
// Which value index lane `lane` holds in slot i after transpose_reduce<V>.
template <int V>
__device__ __forceinline__ int transposed_index(int i, int lane) {
  int idx = i, n = V;
#pragma unroll
  for (int o = 16; o >= 1; o /= 2)
    if (n > 1) {
      n /= 2;
      if (lane & o) idx += n;
    }
  return idx;
}
// The lanes that store: one of each group holding the same sums (V < 32: lanes whose low 5 - log2(V) bits are 0).
template <int V>
__device__ __forceinline__ bool transposed_owner(int lane) {
  return V >= 32 ? true : (lane & (32 / V - 1)) == 0;
}
}  // namespace gemv
#endif

template <class C>
__global__ void __launch_bounds__(C::kThreads) gemv_kernel(const MmaArgs a) {
#if defined(CKTUNE_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  using namespace gemv;
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
      // Each lane brings its 16 activations of a token to |x'| < 2 by a power of two taken from their largest
      // code (e4m3 magnitudes order as integers), so a sum of 8 products (|w| <= 448) stays under 8 * 896 < 65504
      // and the largest products keep f16's 11 bits; the power of two returns in the fp32 scale.
      uint32_t xh[TM][8];
      float unscale[TM];
#pragma unroll
      for (int m = 0; m < TM; ++m) {
        const uint32_t mag = 0x7F7F7F7Fu;
        uint32_t mx = __vmaxu4(__vmaxu4(xv[m].x & mag, xv[m].y & mag), __vmaxu4(xv[m].z & mag, xv[m].w & mag));
        mx = max(max(mx & 0xFFu, (mx >> 8) & 0xFFu), max((mx >> 16) & 0xFFu, mx >> 24));
        const int e = static_cast<int>(mx >> 3);           // biased exponent of the largest |x| (0: subnormal)
        const uint32_t h = static_cast<uint32_t>(22 - e) << 10;  // f16 2^(7 - e), e in [0, 15]: normal
        unscale[m] = __int_as_float((e - 7 + 127) << 23);  // 2^(e - 7)
        fp8x16_to_f16x2(xv[m], xh[m]);
#pragma unroll
        for (int j = 0; j < 8; ++j) xh[m][j] = hmul2(xh[m][j], h | (h << 16));
      }
#pragma unroll
      for (int r = 0; r < RW; ++r) {
        uint32_t wh[8];
        fp8x16_to_f16x2(wv[s][r], wh);
#pragma unroll
        for (int m = 0; m < TM; ++m) {
          if (m >= M) continue;
          uint32_t h = 0;
#pragma unroll
          for (int j = 0; j < 8; ++j) h = hfma2(wh[j], xh[m][j], h);
          const float2 f = f16x2_to_f32(h);
          acc[m][r] = fmaf(f.x + f.y, C::kBlockScales ? sc[m] * unscale[m] : unscale[m], acc[m][r]);
        }
      }
    } else {
      float xf[TM][16];
#pragma unroll
      for (int m = 0; m < TM; ++m) fp8x16_to_f32(xv[m], xf[m]);
#pragma unroll
      for (int r = 0; r < RW; ++r) {
        float wf[16];
        fp8x16_to_f32(wv[s][r], wf);
#pragma unroll
        for (int m = 0; m < TM; ++m) {
          if (m >= M) continue;
          float p = 0.f;
#pragma unroll
          for (int j = 0; j < 16; ++j) p = fmaf(wf[j], xf[m][j], p);
          if constexpr (C::kBlockScales) acc[m][r] = fmaf(p, sc[m], acc[m][r]);
          else acc[m][r] += p;
        }
      }
    }
  };

#pragma unroll
  for (int s = 0; s < R; ++s)
    if (wk + s * WK < chunks) load(s, wk + s * WK);
  for (int base = wk; base < chunks; base += R * WK) {
#pragma unroll
    for (int s = 0; s < R; ++s) {
      const int c = base + s * WK;
      if (c < chunks) {
        compute(s, c);
        if (c + R * WK < chunks) load(s, c + R * WK);
      }
    }
  }

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
