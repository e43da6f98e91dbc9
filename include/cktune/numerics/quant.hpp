#pragma once
// Quantisers of the kinds AITER's tests and kernels use, and the weight layouts of the bpreshuffle
// families. Every quantiser works in blocks: scale = amax(block) / dtype_max (1 for an all-zero
// block, so zeros quantise to zeros instead of dividing by zero), q = encode(x / scale).
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "cktune/core/names.hpp"
#include "cktune/numerics/fp8.hpp"

namespace cktune {

// The 8-bit element types of quantised operands (AITER's q_dtype_* cells).
enum class QDtype { Int8, Fp8E4M3FN, Fp8E4M3FNUZ };
using QDtypeName = EnumName<QDtype>;
inline constexpr QDtypeName kQDtypeNames[] = {
    {QDtype::Int8, "torch.int8"},
    {QDtype::Fp8E4M3FN, "torch.float8_e4m3fn"},
    {QDtype::Fp8E4M3FNUZ, "torch.float8_e4m3fnuz"},
};
std::string_view to_string(QDtype d);
std::optional<QDtype> qdtype_from_string(std::string_view s);  // torch name; "int8"/"i8" and fp8 short names too
QDtype qdtype_of(Fp8Format f);
bool is_fp8(QDtype d);
Fp8Format fp8_format_of(QDtype d);  // precondition: is_fp8(d)
float qdtype_max(QDtype d);        // 127, 448, 240

// AITER's QuantType cells. per_128x128 weights are written as per_1x128 in its tables.
enum class QuantType { No, PerTensor, PerToken, Per1x32, Per1x128 };
using QuantTypeName = EnumName<QuantType>;
inline constexpr QuantTypeName kQuantTypeNames[] = {
    {QuantType::No, "QuantType.No"},           {QuantType::PerTensor, "QuantType.per_Tensor"},
    {QuantType::PerToken, "QuantType.per_Token"}, {QuantType::Per1x32, "QuantType.per_1x32"},
    {QuantType::Per1x128, "QuantType.per_1x128"},
};
std::string_view to_string(QuantType q);
std::optional<QuantType> quant_type_from_string(std::string_view s);

// int8: round half to even, clamp to [-127, 127] (symmetric, as scale = amax/127 implies).
// AITER's torch test path casts with `.to(torch.int8)`, which truncates; cktune rounds, which
// halves the quantisation error. Either way the reference consumes the stored codes, so the choice
// changes the data, never a verdict. fp8: round to nearest even, saturating.
uint8_t encode_q(float x, QDtype d);
inline float decode_q(uint8_t code, QDtype d) {
  if (d == QDtype::Int8) return static_cast<float>(static_cast<int8_t>(code));
  return fp8_to_float(code, d == QDtype::Fp8E4M3FN ? Fp8Format::E4M3FN : Fp8Format::E4M3FNUZ);
}

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline constexpr int kScaleBlock = 128;  // the 128 of per_1x128 and 128x128

// A quantised row-major matrix with one scale per (block_rows x block_cols) block; ragged edge
// blocks are smaller and get their own amax.
struct Quantized {
  QDtype dtype = QDtype::Fp8E4M3FN;
  int64_t rows = 0, cols = 0;
  int64_t block_rows = 1, block_cols = 1;
  std::vector<uint8_t> q;       // rows * cols codes (int8 stored as two's-complement bytes)
  std::vector<float> scales;    // scale_rows() x scale_cols(), row-major

  int64_t scale_rows() const { return ceil_div(rows, block_rows); }
  int64_t scale_cols() const { return ceil_div(cols, block_cols); }
  float scale_at(int64_t r, int64_t c) const {
    return scales[static_cast<size_t>((r / block_rows) * scale_cols() + c / block_cols)];
  }
  float dequant(int64_t r, int64_t c) const {
    return decode_q(q[static_cast<size_t>(r * cols + c)], dtype) * scale_at(r, c);
  }
};

Quantized quantize_blocks(const float* x, int64_t rows, int64_t cols, int64_t block_rows, int64_t block_cols,
                          QDtype d, int threads = 0);
// Activations [M,K]: scales [M, ceil(K/128)].
inline Quantized quant_per_1x128(const float* x, int64_t m, int64_t k, QDtype d, int threads = 0) {
  return quantize_blocks(x, m, k, 1, kScaleBlock, d, threads);
}
// Weights [N,K]: scales [ceil(N/128), ceil(K/128)].
inline Quantized quant_per_128x128(const float* w, int64_t n, int64_t k, QDtype d, int threads = 0) {
  return quantize_blocks(w, n, k, kScaleBlock, kScaleBlock, d, threads);
}
// Activations [M,K]: one scale per row (token).
inline Quantized quant_per_token(const float* x, int64_t m, int64_t k, QDtype d, int threads = 0) {
  return quantize_blocks(x, m, k, 1, k, d, threads);
}
// Weights [N,K]: one scale per output channel, i.e. per row of [N,K].
inline Quantized quant_per_channel(const float* w, int64_t n, int64_t k, QDtype d, int threads = 0) {
  return quantize_blocks(w, n, k, 1, k, d, threads);
}
std::vector<float> dequantize(const Quantized& qm);

// bpreshuffle weight layout: [N,K] viewed as (N/16, 16, K/32, 2, 16) and permuted (0,2,3,1,4), i.e.
// AITER's (-1, N/16, 16, K/32, 2, 16).permute(0,1,3,4,2,5): 16x16 tiles, each stored row by row,
// tiles ordered by (n/16, k/32, (k/16)%2). Needs N % 16 == 0 and K % 32 == 0.
bool can_preshuffle(int64_t n, int64_t k);
int64_t preshuffled_index(int64_t row, int64_t col, int64_t n, int64_t k);  // where W[row,col] goes
std::vector<uint8_t> preshuffle_weight(const uint8_t* w, int64_t n, int64_t k);   // throws Error if !can_preshuffle
std::vector<uint8_t> unshuffle_weight(const uint8_t* ws, int64_t n, int64_t k);   // inverse

// Row-major [rows, cols] -> [cols, rows]: x_scale [M, K/128] as the bpreshuffle blockscale kernels take it.
std::vector<float> transpose(const float* s, int64_t rows, int64_t cols);

}  // namespace cktune
