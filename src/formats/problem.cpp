#include "cktune/formats/problem.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "cktune/core/error.hpp"

namespace cktune {

namespace {

size_t column_index(Family family, std::string_view column) {
  const auto& cols = spec(family).untuned;
  auto it = std::find(cols.begin(), cols.end(), column);
  if (it == cols.end())
    throw Error(fmt::format("family {} has no column '{}'", family_name(family), column));
  return static_cast<size_t>(it - cols.begin());
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

double dtype_bytes(std::string_view dtype) {
  if (dtype.find("bfloat16") != std::string_view::npos || dtype.find("float16") != std::string_view::npos) return 2;
  if (dtype.find("float4") != std::string_view::npos || dtype.find("int4") != std::string_view::npos) return 0.5;
  return 1;  // fp8, int8
}

}  // namespace

const std::string& ProblemKey::get(std::string_view column) const {
  size_t i = column_index(family, column);
  if (i >= cells.size()) throw Error(fmt::format("problem key has no cell for '{}'", column));
  return cells[i];
}

long ProblemKey::get_int(std::string_view column) const {
  const std::string& s = get(column);
  long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size())
    throw Error(fmt::format("'{}' = '{}' is not an integer", column, s));
  return v;
}

std::string ProblemKey::to_string() const {
  std::string out;
  const auto& cols = spec(family).untuned;
  for (size_t i = 0; i < cols.size() && i < cells.size(); ++i) {
    if (i) out += ',';
    out += fmt::format("{}={}", cols[i], cells[i]);
  }
  return out;
}

std::string ProblemKey::group() const {
  std::string out;
  const auto& s = spec(family);
  for (size_t i = 0; i < s.untuned.size() && i < cells.size(); ++i) {
    if (s.untuned[i] == s.size_column) continue;
    if (!out.empty()) out += ',';
    out += cells[i];
  }
  return out;
}

double ProblemKey::flops() const {
  if (spec(family).is_moe) {
    double t = static_cast<double>(get_int("token")), d = static_cast<double>(get_int("model_dim"));
    double inter = static_cast<double>(get_int("inter_dim")), topk = static_cast<double>(get_int("topk"));
    bool g1u1 = get("use_g1u1") == "1";
    // Stage 1: [T·topk, d] x [d, (g1u1 ? 2 : 1)·inter]; stage 2: [T·topk, inter] x [inter, d].
    return 2.0 * t * topk * d * inter * (g1u1 ? 3.0 : 2.0);
  }
  GemmDims g = gemm_dims(*this);
  return 2.0 * static_cast<double>(g.B) * static_cast<double>(g.M) * static_cast<double>(g.N) *
         static_cast<double>(g.K);
}

double ProblemKey::min_bytes() const {
  if (spec(family).is_moe) {
    double t = static_cast<double>(get_int("token")), e = static_cast<double>(get_int("expert"));
    double topk = static_cast<double>(get_int("topk"));
    // The experts T tokens reach under uniform routing (each token picks topk distinct experts): E·(1 − (1 −
    // topk/E)^T), as docs/perf-targets' floors count them. min(E, T·topk) overstated it (16 DeepSeek-V3 tokens:
    // 128 where 102 is expected), which put measured pipelines below their "floor".
    return min_bytes(e > 0 ? e * (1.0 - std::pow(1.0 - std::min(topk, e) / e, t)) : 0.0);
  }
  return min_bytes(0.0);
}

double ProblemKey::min_bytes_or(double bytes) const {
  return bytes > 0 && std::isfinite(bytes) ? bytes : min_bytes();
}

double ProblemKey::min_bytes(double experts_reached) const {
  if (spec(family).is_moe) {
    double t = static_cast<double>(get_int("token")), d = static_cast<double>(get_int("model_dim"));
    double inter = static_cast<double>(get_int("inter_dim"));
    double wb = dtype_bytes(get("q_dtype_w"));
    bool g1u1 = get("use_g1u1") == "1";
    return t * d * 2.0 + experts_reached * (g1u1 ? 3.0 : 2.0) * inter * d * wb + t * d * 2.0;
  }
  GemmDims g = gemm_dims(*this);
  double a = 1, w = 1, o = 2;
  if (family == Family::A4W4Blockscale) a = w = 0.5;
  if (family == Family::BatchedBf16) a = w = 2;
  double B = static_cast<double>(g.B), M = static_cast<double>(g.M), N = static_cast<double>(g.N),
         K = static_cast<double>(g.K);
  return B * (M * K * a + N * K * w + M * N * o);
}

MathType ProblemKey::math_type() const {
  switch (family) {
    case Family::A8W8:
    case Family::A8W8Bpreshuffle: return get("q_dtype_w").find("int8") != std::string::npos ? MathType::Int8 : MathType::Fp8;
    case Family::A8W8Blockscale:
    case Family::A8W8BlockscaleBpreshuffle: return MathType::Fp8;
    case Family::A4W4Blockscale: return MathType::Fp4;
    case Family::BatchedA8W8: return MathType::Int8;
    case Family::BatchedBf16: return MathType::Bf16;
    case Family::Moe2Stages: break;
  }
  // Fused MoE: the wider of the two quantised operand types.
  const std::string& a = get("q_dtype_a");
  const std::string& w = get("q_dtype_w");
  const std::string& wide = dtype_bytes(a) >= dtype_bytes(w) ? a : w;
  if (dtype_bytes(wide) >= 2) return MathType::Bf16;
  if (dtype_bytes(wide) < 1) return wide.find("float4") != std::string::npos ? MathType::Fp4 : MathType::Int8;
  return wide.find("int8") != std::string::npos ? MathType::Int8 : MathType::Fp8;
}

std::string canonical_cell(std::string_view column, std::string_view cell) {
  std::string_view s = trim(cell);
  if (s == "True" || s == "true") return "1";
  if (s == "False" || s == "false") return "0";
  (void)column;
  long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc() && p == s.data() + s.size()) return fmt::format("{}", v);
  if (!s.empty() && s.front() == '+') return canonical_cell(column, s.substr(1));
  return std::string(s);
}

GemmDims gemm_dims(const ProblemKey& key) {
  GemmDims g;
  if (spec(key.family).is_moe) throw Error("fused MoE problems have no single GEMM shape");
  if (spec(key.family).is_batched) g.B = key.get_int("B");
  g.M = key.get_int("M");
  g.N = key.get_int("N");
  g.K = key.get_int("K");
  return g;
}

}  // namespace cktune
