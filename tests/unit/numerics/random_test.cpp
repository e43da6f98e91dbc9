#include "cktune/numerics/random.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <gtest/gtest.h>

#include "cktune/core/error.hpp"

namespace cktune {
namespace {

TEST(Random, Splitmix64KnownValue) {
  // First output of SplitMix64 seeded with 0: pins the generator across machines and compilers.
  EXPECT_EQ(splitmix64(0), 0xe220a8397b1dcdafull);
}

TEST(Random, UniformRangeAndMoments) {
  RandomStream s(42, 0);
  double sum = 0, sum_n = 0, sum_n2 = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const float u = s.uniform(static_cast<uint64_t>(i));
    ASSERT_GE(u, 0.0f);
    ASSERT_LT(u, 1.0f);
    sum += u;
    const float g = s.normal_like(static_cast<uint64_t>(i));
    sum_n += g;
    sum_n2 += static_cast<double>(g) * g;
  }
  EXPECT_NEAR(sum / n, 0.5, 0.01);
  EXPECT_NEAR(sum_n / n, 0.0, 0.02);
  EXPECT_NEAR(sum_n2 / n, 1.0, 0.02);
  EXPECT_NE(RandomStream(42, 0).bits(5), RandomStream(43, 0).bits(5));
  EXPECT_NE(RandomStream(42, 0).bits(5), RandomStream(42, 1).bits(5));
}

TEST(Random, BlockscaleInputsDeterministicShapedAndNotZero) {
  for (auto dist : {InputDistribution::Aiter, InputDistribution::Signed}) {
    const auto a = make_blockscale_inputs(3, 200, 300, Fp8Format::E4M3FNUZ, 7, dist);
    const auto b = make_blockscale_inputs(3, 200, 300, Fp8Format::E4M3FNUZ, 7, dist);
    const auto c = make_blockscale_inputs(3, 200, 300, Fp8Format::E4M3FNUZ, 8, dist);
    EXPECT_EQ(a.xq, b.xq);
    EXPECT_EQ(a.wq, b.wq);
    EXPECT_EQ(a.w_scale, b.w_scale);
    EXPECT_NE(a.wq, c.wq);
    EXPECT_EQ(a.xq.size(), 900u);
    EXPECT_EQ(a.x_scale.size(), 3u * 3);
    EXPECT_EQ(a.w_scale.size(), 2u * 3);
    const auto nonzero = std::count_if(a.xq.begin(), a.xq.end(), [](uint8_t q) { return q != 0; });
    EXPECT_GT(nonzero, 800);
    for (uint8_t q : a.wq) ASSERT_FALSE(fp8_is_nan(q, a.fmt));
    const bool any_negative = std::any_of(a.wq.begin(), a.wq.end(), [&](uint8_t q) { return fp8_to_float(q, a.fmt) < 0; });
    EXPECT_EQ(any_negative, dist == InputDistribution::Signed);
  }
}

TEST(Random, PtpcInputs) {
  const auto in = make_ptpc_inputs(4, 33, 70, QDtype::Int8, 1);
  EXPECT_EQ(in.x_scale.size(), 4u);
  EXPECT_EQ(in.w_scale.size(), 33u);
  EXPECT_EQ(in.wq.size(), 33u * 70);
  // Per-row quantisation puts each row's largest magnitude on +-127.
  for (int r = 0; r < 4; ++r) {
    int mx = 0;
    for (int k = 0; k < 70; ++k) mx = std::max(mx, std::abs(int(static_cast<int8_t>(in.xq[static_cast<size_t>(r * 70 + k)]))));
    EXPECT_EQ(mx, 127);
  }
}

TEST(Random, MoeInputsRoutingAndThreadIndependence) {
  const auto a = make_moe_inputs(37, 256, 192, 9, 3, QuantType::Per1x128, Fp8Format::E4M3FN, 5, InputDistribution::Aiter, 1);
  const auto b = make_moe_inputs(37, 256, 192, 9, 3, QuantType::Per1x128, Fp8Format::E4M3FN, 5, InputDistribution::Aiter, 3);
  EXPECT_EQ(a.w1q, b.w1q);
  EXPECT_EQ(a.w2_scale, b.w2_scale);
  EXPECT_EQ(a.topk_ids, b.topk_ids);
  EXPECT_EQ(a.topk_weights, b.topk_weights);
  EXPECT_EQ(a.w1q.size(), 9u * 384 * 256);
  EXPECT_EQ(a.w1_scale.size(), 9u * 3 * 2);
  EXPECT_EQ(a.w2_scale.size(), 9u * 2 * 2);
  EXPECT_EQ(a.x_scale.size(), 37u * 2);
  EXPECT_TRUE(a.w1.empty());
  std::set<int> used;
  for (int t = 0; t < 37; ++t) {
    std::set<int> ids;
    float sum = 0;
    for (int j = 0; j < 3; ++j) {
      const int e = a.topk_ids[static_cast<size_t>(t * 3 + j)];
      ASSERT_GE(e, 0);
      ASSERT_LT(e, 9);
      ids.insert(e);
      used.insert(e);
      const float w = a.topk_weights[static_cast<size_t>(t * 3 + j)];
      EXPECT_GT(w, 0.0f);
      if (j > 0) {
        EXPECT_LE(w, a.topk_weights[static_cast<size_t>(t * 3 + j - 1)]);
      }
      sum += w;
    }
    EXPECT_EQ(ids.size(), 3u);
    EXPECT_NEAR(sum, 1.0f, 1e-6f);
  }
  EXPECT_GT(used.size(), 6u);
  const auto n = make_moe_inputs(4, 128, 128, 4, 2, QuantType::No, Fp8Format::E4M3FN, 5);
  EXPECT_EQ(n.w1.size(), 4u * 256 * 128);
  EXPECT_TRUE(n.w1q.empty());
  EXPECT_THROW(make_moe_inputs(4, 128, 128, 2, 3, QuantType::No, Fp8Format::E4M3FN, 5), Error);
  EXPECT_THROW(make_moe_inputs(4, 128, 128, 4, 2, QuantType::PerTensor, Fp8Format::E4M3FN, 5), Error);
}

}  // namespace
}  // namespace cktune
