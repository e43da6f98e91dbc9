#include "cktune/ref/moe.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/numerics/bf16.hpp"
#include "cktune/numerics/parallel.hpp"

namespace cktune {

// ---- sorting ----------------------------------------------------------------------------------

MoeSorting moe_sorting(std::span<const int32_t> topk_ids, std::span<const float> topk_weights, int tokens, int topk,
                       int experts, int block_m, std::span<const int32_t> expert_mask) {
  if (tokens <= 0 || topk <= 0 || experts <= 0 || block_m <= 0)
    throw Error(fmt::format("moe_sorting: bad sizes tokens={} topk={} experts={} block_m={}", tokens, topk, experts, block_m));
  if (tokens >= (1 << 24) || topk >= 256)
    throw Error(fmt::format("moe_sorting: tokens {} or topk {} does not fit the (slot << 24) | token packing", tokens, topk));
  const size_t pairs = static_cast<size_t>(tokens) * static_cast<size_t>(topk);
  if (topk_ids.size() != pairs) throw Error(fmt::format("moe_sorting: {} topk ids for {} tokens x {}", topk_ids.size(), tokens, topk));
  if (!topk_weights.empty() && topk_weights.size() != pairs)
    throw Error(fmt::format("moe_sorting: {} topk weights for {} tokens x {}", topk_weights.size(), tokens, topk));
  if (!expert_mask.empty() && expert_mask.size() != static_cast<size_t>(experts))
    throw Error(fmt::format("moe_sorting: expert mask has {} entries for {} experts", expert_mask.size(), experts));

  MoeSorting s;
  s.tokens = tokens;
  s.topk = topk;
  s.experts = experts;
  s.block_m = block_m;
  const size_t capacity = pairs + static_cast<size_t>(experts) * static_cast<size_t>(block_m) - static_cast<size_t>(topk);
  s.sorted_ids.assign(capacity, s.pad_value());
  s.sorted_weights.assign(capacity, 0.0f);
  s.sorted_expert_ids.assign(static_cast<size_t>(ceil_div(static_cast<int64_t>(capacity), block_m)), -1);

  std::vector<int64_t> count(static_cast<size_t>(experts), 0);
  for (int32_t e : topk_ids) {
    if (e < 0 || e >= experts) throw Error(fmt::format("moe_sorting: expert id {} outside [0, {})", e, experts));
    ++count[static_cast<size_t>(e)];
  }
  auto active = [&](int e) { return expert_mask.empty() || expert_mask[static_cast<size_t>(e)] != 0; };
  std::vector<int64_t> start(static_cast<size_t>(experts), 0);
  int64_t pos = 0, block = 0, skipped = 0;
  for (int e = 0; e < experts; ++e) {
    if (!active(e)) {
      ++skipped;
      continue;
    }
    start[static_cast<size_t>(e)] = pos;
    const int64_t blocks = ceil_div(count[static_cast<size_t>(e)], block_m);
    for (int64_t b = 0; b < blocks; ++b) s.sorted_expert_ids[static_cast<size_t>(block++)] = static_cast<int32_t>(e - skipped);
    pos += blocks * block_m;
  }
  s.num_valid_ids = static_cast<int32_t>(pos);
  // Walking pairs in (token, slot) order keeps that order inside each expert.
  for (int t = 0; t < tokens; ++t)
    for (int j = 0; j < topk; ++j) {
      const size_t i = static_cast<size_t>(t) * static_cast<size_t>(topk) + static_cast<size_t>(j);
      const int e = topk_ids[i];
      if (!active(e)) continue;
      const auto at = static_cast<size_t>(start[static_cast<size_t>(e)]++);
      s.sorted_ids[at] = moe_pack(j, t);
      s.sorted_weights[at] = topk_weights.empty() ? 0.0f : topk_weights[i];
    }
  return s;
}

// ---- activation ----------------------------------------------------------------------------------

std::string_view to_string(Activation a) {
  return enum_text(kActivationNames, a, "?");
}

std::optional<Activation> activation_from_string(std::string_view s) {
  for (const auto& n : kActivationNames)
    if (n.text == s || n.text.substr(15) == s) return n.value;  // "ActivationType." is 15 characters
  return std::nullopt;
}

double apply_activation(Activation a, double x) {
  if (a == Activation::Silu) return x / (1.0 + std::exp(-x));
  return 0.5 * x * (1.0 + std::erf(x * 0.70710678118654752440));
}

// ---- 2-stage reference ----------------------------------------------------------------------------

namespace {

void check_params(const MoeInputs& in, const MoeParams& p) {
  if (p.quant != in.quant)
    throw Error(fmt::format("moe reference: params ask for {} but the inputs are {}", to_string(p.quant), to_string(in.quant)));
  if (in.quant != QuantType::No && in.quant != QuantType::Per1x128)
    throw Error(fmt::format("moe reference: quantisation {} is not supported", to_string(in.quant)));
}

// Decoded operand rows. Codes are decoded unscaled; block scales are applied per 128-wide block
// of the reduction dimension after an exact block sum, as in the GEMM reference.
struct Decoder {
  const MoeInputs& in;
  std::span<const float, 256> table;
  explicit Decoder(const MoeInputs& i) : in(i), table(fp8_table(i.fmt)) {}

  void x_row(int64_t t, double* out) const {
    const int64_t D = in.model_dim;
    if (in.quantized()) {
      for (int64_t k = 0; k < D; ++k) out[k] = table[in.xq[static_cast<size_t>(t * D + k)]];
    } else {
      for (int64_t k = 0; k < D; ++k) out[k] = bf16_to_float(in.x[static_cast<size_t>(t * D + k)]);
    }
  }
  // Row r of expert e's [rows, cols] matrix (w1: [2I, D], w2: [D, I]).
  void w_row(bool first, int64_t e, int64_t r, double* out) const {
    const int64_t rows = first ? 2LL * in.inter_dim : in.model_dim, cols = first ? in.model_dim : in.inter_dim;
    const size_t base = static_cast<size_t>((e * rows + r) * cols);
    if (in.quantized()) {
      const auto& q = first ? in.w1q : in.w2q;
      for (int64_t k = 0; k < cols; ++k) out[k] = table[q[base + static_cast<size_t>(k)]];
    } else {
      const auto& w = first ? in.w1 : in.w2;
      for (int64_t k = 0; k < cols; ++k) out[k] = bf16_to_float(w[base + static_cast<size_t>(k)]);
    }
  }
  float w_scale(bool first, int64_t e, int64_t r, int64_t kb) const {
    const int64_t rows = first ? 2LL * in.inter_dim : in.model_dim, cols = first ? in.model_dim : in.inter_dim;
    const int64_t sr = ceil_div(rows, kScaleBlock), sc = ceil_div(cols, kScaleBlock);
    const auto& s = first ? in.w1_scale : in.w2_scale;
    return s[static_cast<size_t>((e * sr + r / kScaleBlock) * sc + kb)];
  }
};

double block_dot(const double* a, const double* b, int64_t n) {
  double s0 = 0, s1 = 0;
  int64_t k = 0;
  for (; k + 2 <= n; k += 2) {
    s0 += a[k] * b[k];
    s1 += a[k + 1] * b[k + 1];
  }
  if (k < n) s0 += a[k] * b[k];
  return s0 + s1;
}

// Sum over 128-blocks of the reduction: (a_scale(kb) * w_scale(kb)) * exact block dot.
template <class AScale, class WScale>
double scaled_dot(const double* a, const double* w, int64_t n, AScale as, WScale ws) {
  double acc = 0;
  for (int64_t k0 = 0, kb = 0; k0 < n; k0 += kScaleBlock, ++kb) {
    const double d = block_dot(a + k0, w + k0, std::min<int64_t>(kScaleBlock, n - k0));
    acc += d * (static_cast<double>(as(kb)) * static_cast<double>(ws(kb)));
  }
  return acc;
}

// Stage 1 for the listed tokens; row i of the output belongs to tokens[i].
MoeStage1Out stage1_tokens(const MoeInputs& in, const MoeParams& p, std::span<const int64_t> tokens, int threads) {
  check_params(in, p);
  const int64_t D = in.model_dim, I = in.inter_dim, topk = in.topk;
  MoeStage1Out s1;
  s1.tokens = static_cast<int>(tokens.size());
  s1.topk = in.topk;
  s1.inter_dim = in.inter_dim;
  s1.a.assign(tokens.size() * static_cast<size_t>(topk * I), 0.0f);
  const Decoder dec(in);
  const int64_t xkb = ceil_div(D, kScaleBlock);
  parallel_for(static_cast<int64_t>(tokens.size()), threads, [&](int64_t lo, int64_t hi) {
    std::vector<double> xd(static_cast<size_t>(D)), wd(static_cast<size_t>(D)), h(static_cast<size_t>(2 * I));
    for (int64_t i = lo; i < hi; ++i) {
      const int64_t t = tokens[static_cast<size_t>(i)];
      dec.x_row(t, xd.data());
      for (int64_t j = 0; j < topk; ++j) {
        const int64_t e = in.topk_ids[static_cast<size_t>(t * topk + j)];
        for (int64_t r = 0; r < 2 * I; ++r) {
          dec.w_row(true, e, r, wd.data());
          h[static_cast<size_t>(r)] =
              in.quantized()
                  ? scaled_dot(xd.data(), wd.data(), D, [&](int64_t kb) { return in.x_scale[static_cast<size_t>(t * xkb + kb)]; },
                               [&](int64_t kb) { return dec.w_scale(true, e, r, kb); })
                  : scaled_dot(xd.data(), wd.data(), D, [](int64_t) { return 1.0f; }, [](int64_t) { return 1.0f; });
        }
        const double w = p.doweight_stage1 ? in.topk_weights[static_cast<size_t>(t * topk + j)] : 1.0;
        float* a = s1.a.data() + (i * topk + j) * I;
        for (int64_t c = 0; c < I; ++c)
          a[c] = round_to_bf16(static_cast<float>(apply_activation(p.act, h[static_cast<size_t>(c)]) * h[static_cast<size_t>(I + c)] * w));
      }
    }
  });
  requantize_stage1(s1, in, threads);
  return s1;
}

void stage2_tokens(const MoeInputs& in, const MoeParams& p, const MoeStage1Out& s1, std::span<const int64_t> tokens,
                   float* out, int threads) {
  check_params(in, p);
  const int64_t D = in.model_dim, I = in.inter_dim, topk = in.topk;
  if (s1.inter_dim != in.inter_dim || s1.topk != in.topk || s1.tokens != static_cast<int>(tokens.size()))
    throw Error("moe stage 2: stage-1 output does not match the inputs");
  if (in.quantized() && s1.aq.size() != s1.a.size()) throw Error("moe stage 2: blockscale stage 2 needs re-quantised stage-1 output");
  const Decoder dec(in);
  const int64_t akb = ceil_div(I, kScaleBlock);
  const auto table = fp8_table(in.fmt);
  parallel_for(static_cast<int64_t>(tokens.size()), threads, [&](int64_t lo, int64_t hi) {
    std::vector<double> ad(static_cast<size_t>(I)), wd(static_cast<size_t>(I)), acc(static_cast<size_t>(D));
    for (int64_t i = lo; i < hi; ++i) {
      const int64_t t = tokens[static_cast<size_t>(i)];
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t j = 0; j < topk; ++j) {
        const int64_t e = in.topk_ids[static_cast<size_t>(t * topk + j)];
        const int64_t row = i * topk + j;
        for (int64_t c = 0; c < I; ++c)
          ad[static_cast<size_t>(c)] = in.quantized() ? table[s1.aq[static_cast<size_t>(row * I + c)]] : s1.a[static_cast<size_t>(row * I + c)];
        const double w = p.doweight_stage1 ? 1.0 : in.topk_weights[static_cast<size_t>(t * topk + j)];
        for (int64_t n = 0; n < D; ++n) {
          dec.w_row(false, e, n, wd.data());
          const double y =
              in.quantized()
                  ? scaled_dot(ad.data(), wd.data(), I, [&](int64_t kb) { return s1.a_scale[static_cast<size_t>(row * akb + kb)]; },
                               [&](int64_t kb) { return dec.w_scale(false, e, n, kb); })
                  : scaled_dot(ad.data(), wd.data(), I, [](int64_t) { return 1.0f; }, [](int64_t) { return 1.0f; });
          acc[static_cast<size_t>(n)] += w * y;
        }
      }
      for (int64_t n = 0; n < D; ++n) out[i * D + n] = static_cast<float>(acc[static_cast<size_t>(n)]);
    }
  });
}

std::vector<int64_t> iota_tokens(int n) {
  std::vector<int64_t> t(static_cast<size_t>(n));
  std::iota(t.begin(), t.end(), 0);
  return t;
}

}  // namespace

void requantize_stage1(MoeStage1Out& s1, const MoeInputs& in, int threads) {
  if (!in.quantized()) {
    s1.aq.clear();
    s1.a_scale.clear();
    return;
  }
  Quantized q = quant_per_1x128(s1.a.data(), static_cast<int64_t>(s1.tokens) * s1.topk, s1.inter_dim, qdtype_of(in.fmt), threads);
  s1.aq = std::move(q.q);
  s1.a_scale = std::move(q.scales);
}

MoeStage1Out ref_moe_stage1(const MoeInputs& in, const MoeParams& p, int threads) {
  const auto t = iota_tokens(in.tokens);
  return stage1_tokens(in, p, t, threads);
}

void ref_moe_stage2(const MoeInputs& in, const MoeParams& p, const MoeStage1Out& s1, float* out, int threads) {
  const auto t = iota_tokens(in.tokens);
  stage2_tokens(in, p, s1, t, out, threads);
}

void ref_moe_2stages(const MoeInputs& in, const MoeParams& p, float* out, int threads) {
  const auto t = iota_tokens(in.tokens);
  const MoeStage1Out s1 = stage1_tokens(in, p, t, threads);
  stage2_tokens(in, p, s1, t, out, threads);
}

namespace {
void check_tokens(const MoeInputs& in, std::span<const int64_t> tokens) {
  for (int64_t t : tokens)
    if (t < 0 || t >= in.tokens) throw Error(fmt::format("moe reference: token {} outside [0, {})", t, in.tokens));
}
}  // namespace

MoeStage1Out ref_moe_stage1_tokens(const MoeInputs& in, const MoeParams& p, std::span<const int64_t> tokens,
                                   int threads) {
  check_tokens(in, tokens);
  return stage1_tokens(in, p, tokens, threads);
}

void ref_moe_stage2_tokens(const MoeInputs& in, const MoeParams& p, const MoeStage1Out& s1,
                           std::span<const int64_t> tokens, float* out, int threads) {
  check_tokens(in, tokens);
  stage2_tokens(in, p, s1, tokens, out, threads);
}

void ref_moe_2stages_tokens(const MoeInputs& in, const MoeParams& p, std::span<const int64_t> tokens, float* out,
                            int threads) {
  check_tokens(in, tokens);
  const MoeStage1Out s1 = stage1_tokens(in, p, tokens, threads);
  stage2_tokens(in, p, s1, tokens, out, threads);
}

}  // namespace cktune
