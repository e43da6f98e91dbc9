#include "cktune/ref/moe.hpp"

#include <cmath>

#include <gtest/gtest.h>

#include "cktune/core/error.hpp"
#include "cktune/numerics/bf16.hpp"
#include "cktune/verify/check.hpp"

namespace cktune {
namespace {

TEST(MoeSorting, HandExample) {
  // 3 tokens, top-2 over 4 experts, blocks of 2.
  const std::vector<int32_t> ids = {1, 3, /**/ 1, 0, /**/ 3, 1};
  const std::vector<float> w = {0.6f, 0.4f, 0.7f, 0.3f, 0.8f, 0.2f};
  const auto s = moe_sorting(ids, w, 3, 2, 4, 2);
  const int32_t pad = (2 << 24) | 3;
  EXPECT_EQ(s.pad_value(), pad);
  EXPECT_EQ(s.sorted_ids.size(), 3u * 2 + 4 * 2 - 2);
  const std::vector<int32_t> want_ids = {moe_pack(1, 1), pad,            // expert 0: token 1 slot 1
                                         moe_pack(0, 0), moe_pack(0, 1), moe_pack(1, 2), pad,  // expert 1
                                         moe_pack(1, 0), moe_pack(0, 2),  // expert 3 (expert 2 has none)
                                         pad, pad, pad, pad};
  EXPECT_EQ(s.sorted_ids, want_ids);
  const std::vector<float> want_w = {0.3f, 0, 0.6f, 0.7f, 0.2f, 0, 0.4f, 0.8f, 0, 0, 0, 0};
  EXPECT_EQ(s.sorted_weights, want_w);
  EXPECT_EQ(s.sorted_expert_ids, (std::vector<int32_t>{0, 1, 1, 3, -1, -1}));
  EXPECT_EQ(s.num_valid_ids, 8);
  EXPECT_EQ(s.num_blocks(), 4);
  EXPECT_EQ(moe_token_of(moe_pack(5, 12345)), 12345);
  EXPECT_EQ(moe_slot_of(moe_pack(5, 12345)), 5);
  EXPECT_EQ(moe_slot_of(pad), 2);
  EXPECT_EQ(moe_token_of(pad), 3);
}

TEST(MoeSorting, ExpertMaskDropsAndRenumbers) {
  const std::vector<int32_t> ids = {1, 3, 1, 0, 3, 1};
  const std::vector<int32_t> mask = {1, 0, 1, 1};
  const auto s = moe_sorting(ids, {}, 3, 2, 4, 2, mask);
  const int32_t pad = (2 << 24) | 3;
  EXPECT_EQ(s.num_valid_ids, 4);
  EXPECT_EQ(std::vector<int32_t>(s.sorted_ids.begin(), s.sorted_ids.begin() + 4),
            (std::vector<int32_t>{moe_pack(1, 1), pad, moe_pack(1, 0), moe_pack(0, 2)}));
  EXPECT_EQ(s.sorted_expert_ids[0], 0);
  EXPECT_EQ(s.sorted_expert_ids[1], 2);  // expert 3, renumbered past the masked expert 1
  EXPECT_EQ(s.sorted_expert_ids[2], -1);
  EXPECT_EQ(s.sorted_weights[2], 0.0f);
}

TEST(MoeSorting, RandomRoutingCoversEveryPairOnce) {
  const auto in = make_moe_inputs(50, 128, 128, 7, 3, QuantType::No, Fp8Format::E4M3FN, 4);
  const auto s = moe_sorting(in.topk_ids, in.topk_weights, 50, 3, 7, 16);
  std::vector<int> seen(150, 0);
  for (int b = 0; b < s.num_blocks(); ++b) {
    const int e = s.sorted_expert_ids[static_cast<size_t>(b)];
    for (int i = b * 16; i < (b + 1) * 16; ++i) {
      const int32_t id = s.sorted_ids[static_cast<size_t>(i)];
      if (id == s.pad_value()) continue;
      const int t = moe_token_of(id), j = moe_slot_of(id);
      ASSERT_EQ(in.topk_ids[static_cast<size_t>(t * 3 + j)], e);
      ASSERT_EQ(s.sorted_weights[static_cast<size_t>(i)], in.topk_weights[static_cast<size_t>(t * 3 + j)]);
      ++seen[static_cast<size_t>(t * 3 + j)];
    }
  }
  for (int c : seen) EXPECT_EQ(c, 1);
  EXPECT_EQ(s.num_valid_ids % 16, 0);
  const std::vector<int32_t> bad = {0, 9};
  EXPECT_THROW(moe_sorting(bad, {}, 1, 2, 4, 16), Error);
}

TEST(MoeActivation, ValuesAndNames) {
  EXPECT_NEAR(apply_activation(Activation::Silu, 1.0), 1.0 / (1.0 + std::exp(-1.0)), 1e-15);
  EXPECT_EQ(apply_activation(Activation::Silu, 0.0), 0.0);
  EXPECT_NEAR(apply_activation(Activation::Gelu, 1.0), 0.8413447460685429, 1e-12);
  EXPECT_NEAR(apply_activation(Activation::Gelu, -3.0), -0.004049694, 1e-8);
  EXPECT_EQ(activation_from_string("ActivationType.Gelu"), Activation::Gelu);
  EXPECT_EQ(activation_from_string("Silu"), Activation::Silu);
  EXPECT_EQ(to_string(Activation::Silu), "ActivationType.Silu");
}

// Naive per-token MoE: dequantise every element to double, no blocking, no sorting.
std::vector<double> naive_moe(const MoeInputs& in, const MoeParams& p) {
  const int D = in.model_dim, I = in.inter_dim, T = in.tokens, K = in.topk;
  const auto tab = fp8_table(in.fmt);
  const int64_t dkb = ceil_div(D, 128), ikb = ceil_div(I, 128), r1b = ceil_div(2 * I, 128);
  auto x = [&](int t, int k) -> double {
    if (!in.quantized()) return bf16_to_float(in.x[static_cast<size_t>(t * D + k)]);
    return double(tab[in.xq[static_cast<size_t>(t * D + k)]]) * in.x_scale[static_cast<size_t>(t * dkb + k / 128)];
  };
  auto w1 = [&](int e, int r, int k) -> double {
    const size_t i = static_cast<size_t>((int64_t(e) * 2 * I + r) * D + k);
    if (!in.quantized()) return bf16_to_float(in.w1[i]);
    return double(tab[in.w1q[i]]) * in.w1_scale[static_cast<size_t>((e * r1b + r / 128) * dkb + k / 128)];
  };
  auto w2 = [&](int e, int n, int k) -> double {
    const size_t i = static_cast<size_t>((int64_t(e) * D + n) * I + k);
    if (!in.quantized()) return bf16_to_float(in.w2[i]);
    return double(tab[in.w2q[i]]) * in.w2_scale[static_cast<size_t>((e * dkb + n / 128) * ikb + k / 128)];
  };
  std::vector<double> out(static_cast<size_t>(T * D), 0.0);
  for (int t = 0; t < T; ++t)
    for (int j = 0; j < K; ++j) {
      const int e = in.topk_ids[static_cast<size_t>(t * K + j)];
      const double rw = in.topk_weights[static_cast<size_t>(t * K + j)];
      std::vector<float> a(static_cast<size_t>(I));
      for (int c = 0; c < I; ++c) {
        double g = 0, u = 0;
        for (int k = 0; k < D; ++k) {
          g += x(t, k) * w1(e, c, k);
          u += x(t, k) * w1(e, I + c, k);
        }
        a[static_cast<size_t>(c)] = round_to_bf16(static_cast<float>(apply_activation(p.act, g) * u * (p.doweight_stage1 ? rw : 1.0)));
      }
      std::vector<double> ad(a.begin(), a.end());
      if (in.quantized()) {
        const auto q = quant_per_1x128(a.data(), 1, I, qdtype_of(in.fmt), 1);
        for (int c = 0; c < I; ++c) ad[static_cast<size_t>(c)] = q.dequant(0, c);
      }
      for (int n = 0; n < D; ++n) {
        double y = 0;
        for (int c = 0; c < I; ++c) y += ad[static_cast<size_t>(c)] * w2(e, n, c);
        out[static_cast<size_t>(t * D + n)] += (p.doweight_stage1 ? 1.0 : rw) * y;
      }
    }
  return out;
}

TEST(RefMoe, MatchesNaivePerTokenImplementation) {
  for (auto quant : {QuantType::Per1x128, QuantType::No}) {
    for (auto act : {Activation::Silu, Activation::Gelu}) {
      for (bool dw : {false, true}) {
        const auto in = make_moe_inputs(6, 160, 192, 5, 2, quant, Fp8Format::E4M3FNUZ, 21);
        const MoeParams p{.act = act, .doweight_stage1 = dw, .quant = quant, .block_m = 32};
        std::vector<float> out(6 * 160);
        ref_moe_2stages(in, p, out.data(), 2);
        const auto naive = naive_moe(in, p);
        for (size_t i = 0; i < out.size(); ++i)
          ASSERT_NEAR(out[i], naive[i], 1e-5 * std::max(1.0, std::fabs(naive[i])))
              << to_string(quant) << " " << to_string(act) << " dw=" << dw << " i=" << i;
      }
    }
  }
}

TEST(RefMoe, StagesComposeAndTokenSubsetsAgree) {
  const auto in = make_moe_inputs(9, 256, 128, 6, 3, QuantType::Per1x128, Fp8Format::E4M3FN, 2);
  const MoeParams p{};
  std::vector<float> full(9 * 256), staged(9 * 256);
  ref_moe_2stages(in, p, full.data(), 3);
  const auto s1 = ref_moe_stage1(in, p, 1);
  EXPECT_EQ(s1.a.size(), 9u * 3 * 128);
  EXPECT_EQ(s1.a_scale.size(), 9u * 3 * 1);
  ref_moe_stage2(in, p, s1, staged.data(), 2);
  EXPECT_EQ(full, staged);
  const std::vector<int64_t> toks = {8, 2};
  std::vector<float> sub(2 * 256);
  ref_moe_2stages_tokens(in, p, toks, sub.data());
  for (size_t i = 0; i < 2; ++i)
    for (size_t n = 0; n < 256; ++n) ASSERT_EQ(sub[i * 256 + n], full[static_cast<size_t>(toks[i]) * 256 + n]);
  MoeParams wrong = p;
  wrong.quant = QuantType::No;
  EXPECT_THROW(ref_moe_2stages(in, wrong, full.data()), Error);
}

// Routed weights are linear: applying them in stage 1 or in stage 2 agrees up to the bf16 rounding
// of the intermediate. With fp8 re-quantisation, a bf16 difference flips some fp8 codes by one step
// (~6% of that element), which moves outputs by ~1-2% RMS: more than rtol, so only a loose bound
// holds there (and per-stage checks must feed both sides the same stage-2 input).
TEST(RefMoe, DoweightStage1IsEquivalentUpToIntermediateRounding) {
  for (auto quant : {QuantType::No, QuantType::Per1x128}) {
    const auto in = make_moe_inputs(16, 256, 256, 8, 4, quant, Fp8Format::E4M3FN, 8);
    std::vector<float> a(16 * 256), b(16 * 256);
    ref_moe_2stages(in, MoeParams{.doweight_stage1 = false, .quant = quant}, a.data());
    ref_moe_2stages(in, MoeParams{.doweight_stage1 = true, .quant = quant}, b.data());
    EXPECT_NE(a, b);  // the intermediate rounding does differ
    double num = 0, den = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      num += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
      den += double(a[i]) * a[i];
    }
    const double rel_rms = std::sqrt(num / den);
    if (quant == QuantType::No) {
      const auto r = check_output(a.data(), b.data(), 16, 256, Tolerance::moe());
      EXPECT_EQ(r.verdict, Verdict::Passed) << r.reason;
      EXPECT_LT(rel_rms, 0.005);
    } else {
      EXPECT_LT(rel_rms, 0.03);
    }
  }
}

}  // namespace
}  // namespace cktune
