#include "cktune/numerics/quant.hpp"

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "cktune/core/error.hpp"
#include "cktune/numerics/random.hpp"

namespace cktune {
namespace {

constexpr QDtype kDtypes[] = {QDtype::Int8, QDtype::Fp8E4M3FN, QDtype::Fp8E4M3FNUZ};

std::vector<float> signed_data(int64_t n, uint64_t seed) {
  RandomStream s(seed, 99);
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = s.normal_like(static_cast<uint64_t>(i)) * 3.0f;
  return v;
}

// Checks shapes, the block-amax property, and the round-trip error bound of every element:
// fp8 keeps 3 mantissa bits (relative error <= 2^-4 of the block amax), int8 half a step.
void check_quantized(const std::vector<float>& x, const Quantized& q, int64_t br, int64_t bc) {
  ASSERT_EQ(q.q.size(), x.size());
  ASSERT_EQ(q.scale_rows(), ceil_div(q.rows, br));
  ASSERT_EQ(q.scale_cols(), ceil_div(q.cols, bc));
  ASSERT_EQ(static_cast<int64_t>(q.scales.size()), q.scale_rows() * q.scale_cols());
  std::vector<float> amax(q.scales.size(), 0.0f);
  for (int64_t r = 0; r < q.rows; ++r)
    for (int64_t c = 0; c < q.cols; ++c) {
      float& a = amax[static_cast<size_t>((r / br) * q.scale_cols() + c / bc)];
      a = std::max(a, std::fabs(x[static_cast<size_t>(r * q.cols + c)]));
    }
  for (size_t b = 0; b < amax.size(); ++b) EXPECT_FLOAT_EQ(q.scales[b], amax[b] / qdtype_max(q.dtype));
  for (int64_t r = 0; r < q.rows; ++r)
    for (int64_t c = 0; c < q.cols; ++c) {
      const float v = x[static_cast<size_t>(r * q.cols + c)];
      const float a = amax[static_cast<size_t>((r / br) * q.scale_cols() + c / bc)];
      const float bound = q.dtype == QDtype::Int8 ? q.scale_at(r, c) * 0.5f * 1.0001f : a * 0.0625f * 1.0001f;
      ASSERT_LE(std::fabs(q.dequant(r, c) - v), bound) << r << "," << c;
      if (std::fabs(v) == a) {  // the block's largest element lands on the top code
        EXPECT_EQ(std::fabs(decode_q(q.q[static_cast<size_t>(r * q.cols + c)], q.dtype)), qdtype_max(q.dtype));
      }
    }
}

TEST(Quant, Per1x128WithRaggedK) {
  for (auto d : kDtypes) {
    const auto x = signed_data(5 * 200, 1);
    const auto q = quant_per_1x128(x.data(), 5, 200, d);
    EXPECT_EQ(q.scale_cols(), 2);
    check_quantized(x, q, 1, 128);
  }
}

TEST(Quant, Per128x128WithRaggedEdges) {
  for (auto d : kDtypes) {
    const auto x = signed_data(200 * 300, 2);
    const auto q = quant_per_128x128(x.data(), 200, 300, d);
    EXPECT_EQ(q.scale_rows(), 2);
    EXPECT_EQ(q.scale_cols(), 3);
    check_quantized(x, q, 128, 128);
  }
}

TEST(Quant, PerTokenAndPerChannel) {
  for (auto d : kDtypes) {
    const auto x = signed_data(7 * 300, 3);
    const auto t = quant_per_token(x.data(), 7, 300, d);
    EXPECT_EQ(t.scales.size(), 7u);
    check_quantized(x, t, 1, 300);
    const auto c = quant_per_channel(x.data(), 7, 300, d, 2);
    EXPECT_EQ(c.q, t.q);
    EXPECT_EQ(c.scales, t.scales);
  }
}

TEST(Quant, ZeroBlockGetsUnitScaleAndZeroCodes) {
  std::vector<float> x(256, 0.0f);
  for (int i = 128; i < 256; ++i) x[static_cast<size_t>(i)] = static_cast<float>(i - 128) - 60.0f;
  const auto q = quant_per_1x128(x.data(), 1, 256, QDtype::Fp8E4M3FNUZ);
  EXPECT_EQ(q.scales[0], 1.0f);
  for (int i = 0; i < 128; ++i) EXPECT_EQ(q.q[static_cast<size_t>(i)], 0);
  EXPECT_FLOAT_EQ(q.scales[1], 67.0f / 240.0f);
}

TEST(Quant, ThreadCountDoesNotChangeResults) {
  const auto x = signed_data(300 * 260, 4);
  const auto a = quant_per_128x128(x.data(), 300, 260, QDtype::Fp8E4M3FN, 1);
  const auto b = quant_per_128x128(x.data(), 300, 260, QDtype::Fp8E4M3FN, 3);
  EXPECT_EQ(a.q, b.q);
  EXPECT_EQ(a.scales, b.scales);
}

TEST(Quant, Int8RoundsHalfToEvenAndClamps) {
  EXPECT_EQ(static_cast<int8_t>(encode_q(2.5f, QDtype::Int8)), 2);
  EXPECT_EQ(static_cast<int8_t>(encode_q(3.5f, QDtype::Int8)), 4);
  EXPECT_EQ(static_cast<int8_t>(encode_q(-2.5f, QDtype::Int8)), -2);
  EXPECT_EQ(static_cast<int8_t>(encode_q(-2.6f, QDtype::Int8)), -3);
  EXPECT_EQ(static_cast<int8_t>(encode_q(1000.0f, QDtype::Int8)), 127);
  EXPECT_EQ(static_cast<int8_t>(encode_q(-1000.0f, QDtype::Int8)), -127);
  EXPECT_EQ(decode_q(0x81, QDtype::Int8), -127.0f);
}

TEST(Quant, PreshuffleLayoutAndInverse) {
  const int64_t n = 48, k = 96;
  std::vector<uint8_t> w(static_cast<size_t>(n * k));
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<uint8_t>(i * 37 + 11);
  const auto s = preshuffle_weight(w.data(), n, k);
  // Hand-checked positions: a tile is 16 rows x 16 columns stored row by row; the two 16-column
  // halves of a 32-column group follow each other; a 16-row panel spans all of K.
  EXPECT_EQ(preshuffled_index(0, 1, n, k), 1);
  EXPECT_EQ(preshuffled_index(1, 0, n, k), 16);
  EXPECT_EQ(preshuffled_index(0, 16, n, k), 256);
  EXPECT_EQ(preshuffled_index(0, 32, n, k), 512);
  EXPECT_EQ(preshuffled_index(16, 0, n, k), 16 * k);
  EXPECT_EQ(s[256], w[16]);
  EXPECT_EQ(s[16 * k], w[static_cast<size_t>(16 * k)]);
  std::vector<bool> hit(w.size(), false);
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < k; ++c) hit[static_cast<size_t>(preshuffled_index(r, c, n, k))] = true;
  EXPECT_TRUE(std::all_of(hit.begin(), hit.end(), [](bool b) { return b; }));  // a permutation
  EXPECT_EQ(unshuffle_weight(s.data(), n, k), w);
  EXPECT_FALSE(can_preshuffle(200, 256));
  EXPECT_THROW(preshuffle_weight(w.data(), 40, 96), Error);
}

TEST(Quant, Transpose) {
  const float s[] = {1, 2, 3, 4, 5, 6};  // 2 x 3
  const auto t = transpose(s, 2, 3);
  EXPECT_EQ(t, (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

TEST(Quant, Names) {
  EXPECT_EQ(to_string(QDtype::Int8), "torch.int8");
  EXPECT_EQ(qdtype_from_string("torch.float8_e4m3fnuz"), QDtype::Fp8E4M3FNUZ);
  EXPECT_EQ(qdtype_from_string("e4m3fn"), QDtype::Fp8E4M3FN);
  EXPECT_EQ(to_string(QuantType::Per1x128), "QuantType.per_1x128");
  EXPECT_EQ(quant_type_from_string("QuantType.per_Token"), QuantType::PerToken);
  EXPECT_EQ(quant_type_from_string("per_1x128"), QuantType::Per1x128);
  EXPECT_EQ(quant_type_from_string("QuantType.per_128x128"), QuantType::Per1x128);
  EXPECT_FALSE(quant_type_from_string("QuantType.bogus").has_value());
}

}  // namespace
}  // namespace cktune
