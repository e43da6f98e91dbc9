#include "cktune/numerics/quant.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/numerics/parallel.hpp"

namespace cktune {

std::string_view to_string(QDtype d) {
  return enum_text(kQDtypeNames, d, "?");
}

std::optional<QDtype> qdtype_from_string(std::string_view s) {
  for (const auto& n : kQDtypeNames)
    if (n.text == s) return n.value;
  if (s == "int8" || s == "i8") return QDtype::Int8;
  if (auto f = fp8_format_from_string(s)) return qdtype_of(*f);
  return std::nullopt;
}

QDtype qdtype_of(Fp8Format f) { return f == Fp8Format::E4M3FN ? QDtype::Fp8E4M3FN : QDtype::Fp8E4M3FNUZ; }
bool is_fp8(QDtype d) { return d != QDtype::Int8; }
Fp8Format fp8_format_of(QDtype d) { return d == QDtype::Fp8E4M3FNUZ ? Fp8Format::E4M3FNUZ : Fp8Format::E4M3FN; }
float qdtype_max(QDtype d) { return d == QDtype::Int8 ? 127.0f : fp8_max(fp8_format_of(d)); }

std::string_view to_string(QuantType q) {
  return enum_text(kQuantTypeNames, q, "?");
}

std::optional<QuantType> quant_type_from_string(std::string_view s) {
  for (const auto& n : kQuantTypeNames)
    if (n.text == s || n.text.substr(10) == s) return n.value;  // with or without "QuantType."
  if (s == "QuantType.per_128x128" || s == "per_128x128") return QuantType::Per1x128;
  return std::nullopt;
}

uint8_t encode_q(float x, QDtype d) {
  if (d != QDtype::Int8) return float_to_fp8(x, fp8_format_of(d), Fp8Overflow::Saturate);
  if (std::isnan(x)) return 0;
  // Round half to even without depending on the rounding mode: floor, then look at the fraction.
  const float c = std::clamp(x, -127.0f, 127.0f);
  const float fl = std::floor(c);
  const float frac = c - fl;
  int v = static_cast<int>(fl);
  if (frac > 0.5f || (frac == 0.5f && (v & 1))) ++v;
  return static_cast<uint8_t>(static_cast<int8_t>(v));
}

Quantized quantize_blocks(const float* x, int64_t rows, int64_t cols, int64_t block_rows, int64_t block_cols,
                          QDtype d, int threads) {
  if (rows < 0 || cols < 0 || block_rows <= 0 || block_cols <= 0)
    throw Error(fmt::format("quantize_blocks: bad shape {}x{} / block {}x{}", rows, cols, block_rows, block_cols));
  Quantized out;
  out.dtype = d;
  out.rows = rows;
  out.cols = cols;
  out.block_rows = block_rows;
  out.block_cols = std::max<int64_t>(block_cols, 1);
  out.q.assign(static_cast<size_t>(rows * cols), 0);
  const int64_t sr = out.scale_rows(), sc = out.scale_cols();
  out.scales.assign(static_cast<size_t>(sr * sc), 1.0f);
  const float qmax = qdtype_max(d);
  // One task per row of blocks: blocks never straddle tasks, so results do not depend on threads.
  parallel_for(sr, threads, [&](int64_t lo, int64_t hi) {
    for (int64_t br = lo; br < hi; ++br) {
      const int64_t r0 = br * block_rows, r1 = std::min(rows, r0 + block_rows);
      for (int64_t bc = 0; bc < sc; ++bc) {
        const int64_t c0 = bc * block_cols, c1 = std::min(cols, c0 + block_cols);
        float amax = 0.0f;
        for (int64_t r = r0; r < r1; ++r)
          for (int64_t c = c0; c < c1; ++c) amax = std::max(amax, std::fabs(x[r * cols + c]));
        const float scale = amax > 0.0f ? amax / qmax : 1.0f;
        out.scales[static_cast<size_t>(br * sc + bc)] = scale;
        for (int64_t r = r0; r < r1; ++r)
          for (int64_t c = c0; c < c1; ++c) out.q[static_cast<size_t>(r * cols + c)] = encode_q(x[r * cols + c] / scale, d);
      }
    }
  });
  return out;
}

std::vector<float> dequantize(const Quantized& qm) {
  std::vector<float> out(static_cast<size_t>(qm.rows * qm.cols));
  for (int64_t r = 0; r < qm.rows; ++r)
    for (int64_t c = 0; c < qm.cols; ++c) out[static_cast<size_t>(r * qm.cols + c)] = qm.dequant(r, c);
  return out;
}

bool can_preshuffle(int64_t n, int64_t k) { return n > 0 && k > 0 && n % 16 == 0 && k % 32 == 0; }

int64_t preshuffled_index(int64_t row, int64_t col, int64_t /*n*/, int64_t k) {
  const int64_t n0 = row / 16, n1 = row % 16;
  const int64_t k0 = col / 32, k1 = (col / 16) % 2, k2 = col % 16;
  return (((n0 * (k / 32) + k0) * 2 + k1) * 16 + n1) * 16 + k2;
}

namespace {
void require_preshuffle(int64_t n, int64_t k) {
  if (!can_preshuffle(n, k))
    throw Error(fmt::format("preshuffled weight layout needs N % 16 == 0 and K % 32 == 0, got N={} K={}", n, k));
}
}  // namespace

std::vector<uint8_t> preshuffle_weight(const uint8_t* w, int64_t n, int64_t k) {
  require_preshuffle(n, k);
  std::vector<uint8_t> out(static_cast<size_t>(n * k));
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < k; ++c) out[static_cast<size_t>(preshuffled_index(r, c, n, k))] = w[r * k + c];
  return out;
}

std::vector<uint8_t> unshuffle_weight(const uint8_t* ws, int64_t n, int64_t k) {
  require_preshuffle(n, k);
  std::vector<uint8_t> out(static_cast<size_t>(n * k));
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < k; ++c) out[static_cast<size_t>(r * k + c)] = ws[preshuffled_index(r, c, n, k)];
  return out;
}

std::vector<float> transpose(const float* s, int64_t rows, int64_t cols) {
  std::vector<float> out(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) out[static_cast<size_t>(c * rows + r)] = s[r * cols + c];
  return out;
}

}  // namespace cktune
