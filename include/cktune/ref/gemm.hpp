#pragma once
// CPU references of the quantised GEMM families. Exact up to the final double -> float rounding:
// fp8 x fp8 (and int8 x int8) products are exact in double, and so is a 128-term block sum (the
// products span < 40 bits of exponent range, well inside double's 53-bit mantissa); block sums are
// then scaled and accumulated in double. Outputs are fp32 and unrounded (kernels round to bf16; the
// verifier compares). Cost: M*N*K multiply-adds in double, split over threads by rows.
#include <cstdint>
#include <span>

#include "cktune/numerics/fp8.hpp"
#include "cktune/numerics/random.hpp"

namespace cktune {

// Non-owning description of a blockscale GEMM's operands in either layout, so references and CPU
// kernels serve a8w8_blockscale and a8w8_blockscale_bpreshuffle with one code path.
struct BlockscaleGemmView {
  int M = 0, N = 0, K = 0;
  Fp8Format fmt = Fp8Format::E4M3FN;
  const uint8_t* xq = nullptr;       // [M, K]
  const float* x_scale = nullptr;    // [M, ceil(K/128)], or [ceil(K/128), M] when x_scale_transposed
  const uint8_t* wq = nullptr;       // [N, K], or the preshuffled layout when w_preshuffled
  const float* w_scale = nullptr;    // [ceil(N/128), ceil(K/128)]
  bool w_preshuffled = false;
  bool x_scale_transposed = false;

  int64_t k_blocks() const { return ceil_div(K, kScaleBlock); }
  float xs(int64_t m, int64_t kb) const { return x_scale_transposed ? x_scale[kb * M + m] : x_scale[m * k_blocks() + kb]; }
  float ws(int64_t n, int64_t kb) const { return w_scale[(n / kScaleBlock) * k_blocks() + kb]; }
  // Copies weight row n (K codes) into `row` whatever the layout.
  void weight_row(int64_t n, uint8_t* row) const;
};
BlockscaleGemmView view_of(const BlockscaleGemmInputs& in);

// Out: [M, N] fp32.
void ref_a8w8_blockscale(const BlockscaleGemmView& v, float* out, int threads = 0);
inline void ref_a8w8_blockscale(const BlockscaleGemmInputs& in, float* out, int threads = 0) {
  ref_a8w8_blockscale(view_of(in), out, threads);
}
// bpreshuffle form: wq_shuffled from preshuffle_weight, x_scale_t = transpose(x_scale) [ceil(K/128), M].
void ref_a8w8_blockscale_preshuffled(int M, int N, int K, Fp8Format fmt, const uint8_t* xq, const float* x_scale_t,
                                     const uint8_t* wq_shuffled, const float* w_scale, float* out, int threads = 0);
// Only the listed rows: out is [rows.size(), N], row i holding output row rows[i]. For verifying
// huge shapes on a sample of rows.
void ref_a8w8_blockscale_rows(const BlockscaleGemmView& v, std::span<const int64_t> rows, float* out, int threads = 0);
inline void ref_a8w8_blockscale_rows(const BlockscaleGemmInputs& in, std::span<const int64_t> rows, float* out,
                                     int threads = 0) {
  ref_a8w8_blockscale_rows(view_of(in), rows, out, threads);
}

// a8w8 per-token / per-channel (int8 or fp8): out[m,n] = (sum_k x[m,k] w[n,k]) * x_scale[m] * w_scale[n].
struct PtpcGemmView {
  int M = 0, N = 0, K = 0;
  QDtype dtype = QDtype::Int8;
  const uint8_t* xq = nullptr;     // [M, K]
  const float* x_scale = nullptr;  // [M]
  const uint8_t* wq = nullptr;     // [N, K] or preshuffled
  const float* w_scale = nullptr;  // [N]
  bool w_preshuffled = false;
  void weight_row(int64_t n, uint8_t* row) const;
};
PtpcGemmView view_of(const PtpcGemmInputs& in);
void ref_a8w8_ptpc(const PtpcGemmView& v, float* out, int threads = 0);
inline void ref_a8w8_ptpc(const PtpcGemmInputs& in, float* out, int threads = 0) { ref_a8w8_ptpc(view_of(in), out, threads); }
void ref_a8w8_ptpc_rows(const PtpcGemmView& v, std::span<const int64_t> rows, float* out, int threads = 0);

// Picks `count` distinct rows of [0, m) spread over the range (always including the first and the
// last row), deterministically from the seed: the sample that ref_*_rows and check_output_rows use.
std::vector<int64_t> sample_rows(int64_t m, int64_t count, uint64_t seed);

}  // namespace cktune
