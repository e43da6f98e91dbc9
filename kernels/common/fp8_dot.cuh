#pragma once
// The CUDA-core fp8 dot products of the decode kernels that read weights as whole row pieces (a8w8_blockscale
// gemv.cuh, moe_2stages stages_gemv.cuh): a lane's 16 fp8 weights against its 16 fp8 activations of a token, and
// the transposing butterfly that sums a warp's lanes. NVIDIA only (cvt.rn.f16x2.e4m3x2 needs sm_89).
//
// Two ways to form a lane's 16 products. Exact: both operands widened to fp32 (f16 holds every e4m3 value, fp32
// every product), summed in fp32. Half: multiplied and summed as f16 pairs, 8 products a half, after the lane has
// scaled its activations by the power of two that puts the largest in [1, 2) (exact, read from the largest code:
// e4m3 magnitudes order as integers); no sum of 8 can overflow (|w| <= 448, 8 * 448 * 2 < 65504), the large
// products keep 11 bits, and the power of two comes back through the fp32 scale. A third of the conversions.
#include <cstdint>

#if defined(CKTUNE_CUDA)

namespace cktune::gpu::fp8dot {

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
__device__ __forceinline__ void to_f32(const uint4& v, float (&f)[16]) {
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
__device__ __forceinline__ void to_f16x2(const uint4& v, uint32_t (&h)[8]) {
  const uint32_t u[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) e4m3x4_to_f16x2(u[i], h[2 * i], h[2 * i + 1]);
}
// Sum of the 16 products in fp32.
__device__ __forceinline__ float dot_f32(const float (&w)[16], const float (&x)[16]) {
  float p = 0.f;
#pragma unroll
  for (int j = 0; j < 16; ++j) p = fmaf(w[j], x[j], p);
  return p;
}

// A lane's 16 activations of a token in the half form: f16 pairs times 2^(7 - e), e the largest code's biased
// exponent, and the 2^(e - 7) that undoes it.
struct HalfActs {
  uint32_t h[8];
  float unscale;
};
__device__ __forceinline__ HalfActs half_acts(const uint4& v) {
  const uint32_t mag = 0x7F7F7F7Fu;
  uint32_t mx = __vmaxu4(__vmaxu4(v.x & mag, v.y & mag), __vmaxu4(v.z & mag, v.w & mag));
  mx = max(max(mx & 0xFFu, (mx >> 8) & 0xFFu), max((mx >> 16) & 0xFFu, mx >> 24));
  const int e = static_cast<int>(mx >> 3);                // 0..15 (0: subnormal or zero)
  const uint32_t s = static_cast<uint32_t>(22 - e) << 10;  // f16 2^(7 - e): biased exponent 7..22, normal
  HalfActs x;
  x.unscale = __int_as_float((e - 7 + 127) << 23);
  to_f16x2(v, x.h);
#pragma unroll
  for (int j = 0; j < 8; ++j) x.h[j] = hmul2(x.h[j], s | (s << 16));
  return x;
}
// Sum of the 16 products, 8 a half in f16, widened; times x.unscale it is the dot product.
__device__ __forceinline__ float dot_half(const uint32_t (&w)[8], const HalfActs& x) {
  uint32_t h = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) h = hfma2(w[j], x.h[j], h);
  const float2 f = f16x2_to_f32(h);
  return f.x + f.y;
}

// Sums v[0..V) over groups of LANES neighbouring lanes (32: the warp, 16: each half), each lane ending with
// max(V / LANES, 1) of the sums: after the step at offset o a lane keeps the half of its values that its bit o
// selects plus its partner's copy of that half. Fixed order, so deterministic.
template <int V, int LANES = 32>
__device__ __forceinline__ void transpose_reduce(float (&v)[V], int lane) {
  int n = V;
#pragma unroll
  for (int o = LANES / 2; o >= 1; o /= 2) {
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
// Which value index lane `lane` holds in slot i after transpose_reduce<V, LANES>.
template <int V, int LANES = 32>
__device__ __forceinline__ int transposed_index(int i, int lane) {
  int idx = i, n = V;
#pragma unroll
  for (int o = LANES / 2; o >= 1; o /= 2)
    if (n > 1) {
      n /= 2;
      if (lane & o) idx += n;
    }
  return idx;
}
// One lane of each group that holds the same sums (V < LANES: the lanes whose low log2(LANES / V) bits are 0).
template <int V, int LANES = 32>
__device__ __forceinline__ bool transposed_owner(int lane) {
  return V >= LANES ? true : (lane & (LANES / V - 1)) == 0;
}

}  // namespace cktune::gpu::fp8dot

#endif  // CKTUNE_CUDA
