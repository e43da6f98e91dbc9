#include "cktune/ref/gemm.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <gtest/gtest.h>

#include "cktune/core/error.hpp"

namespace cktune {
namespace {

// Independent formula: dequantise every element, multiply and sum in double, no blocking.
std::vector<double> naive_blockscale(const BlockscaleGemmInputs& in) {
  const int64_t kb = in.k_blocks();
  std::vector<double> out(static_cast<size_t>(in.M) * in.N);
  for (int m = 0; m < in.M; ++m)
    for (int n = 0; n < in.N; ++n) {
      double s = 0;
      for (int k = 0; k < in.K; ++k) {
        const double x = fp8_to_float(in.xq[static_cast<size_t>(m * in.K + k)], in.fmt) * double(in.x_scale[static_cast<size_t>(m * kb + k / 128)]);
        const double w = fp8_to_float(in.wq[static_cast<size_t>(n * in.K + k)], in.fmt) * double(in.w_scale[static_cast<size_t>((n / 128) * kb + k / 128)]);
        s += x * w;
      }
      out[static_cast<size_t>(m * in.N + n)] = s;
    }
  return out;
}

BlockscaleGemmInputs constant_inputs(int M, int N, int K, Fp8Format fmt, float x, float w) {
  BlockscaleGemmInputs in;
  in.M = M;
  in.N = N;
  in.K = K;
  in.fmt = fmt;
  in.xq.assign(static_cast<size_t>(M) * K, float_to_fp8(x, fmt));
  in.wq.assign(static_cast<size_t>(N) * K, float_to_fp8(w, fmt));
  in.x_scale.assign(static_cast<size_t>(M * in.k_blocks()), 1.0f);
  in.w_scale.assign(static_cast<size_t>(in.n_blocks() * in.k_blocks()), 1.0f);
  return in;
}

TEST(RefGemm, BlockscaleHandComputed) {
  for (auto fmt : {Fp8Format::E4M3FN, Fp8Format::E4M3FNUZ}) {
    // K = 128: 128 * (1.0 * 2) * (0.5 * 0.25) = 32.
    auto in = constant_inputs(1, 1, 128, fmt, 1.0f, 0.5f);
    in.x_scale = {2.0f};
    in.w_scale = {0.25f};
    float out = 0;
    ref_a8w8_blockscale(in, &out);
    EXPECT_EQ(out, 32.0f);
    // K = 256 with a second block: x = 1 (scale 3), w = -1.5 (scale 1): 32 + 128 * 3 * -1.5 = -544.
    in = constant_inputs(1, 1, 256, fmt, 1.0f, 0.5f);
    std::fill(in.wq.begin() + 128, in.wq.end(), float_to_fp8(-1.5f, fmt));
    in.x_scale = {2.0f, 3.0f};
    in.w_scale = {0.25f, 1.0f};
    ref_a8w8_blockscale(in, &out);
    EXPECT_EQ(out, -544.0f);
  }
}

TEST(RefGemm, RaggedNUsesTheRightWeightScaleRow) {
  // N = 200: rows 0..127 use w_scale row 0, rows 128..199 row 1. K = 160: a 32-wide tail block.
  auto in = constant_inputs(2, 200, 160, Fp8Format::E4M3FN, 0.5f, 2.0f);
  in.w_scale = {1.0f, 0.5f, 4.0f, 0.25f};  // [2 n-blocks, 2 k-blocks]
  std::vector<float> out(400);
  ref_a8w8_blockscale(in, out.data());
  // block 0: 128 * 1 * s0, block 1: 32 * 1 * s1 (x*w = 1)
  EXPECT_EQ(out[0], 128.0f * 1.0f + 32.0f * 0.5f);
  EXPECT_EQ(out[127], 144.0f);
  EXPECT_EQ(out[128], 128.0f * 4.0f + 32.0f * 0.25f);
  EXPECT_EQ(out[399], 520.0f);
}

TEST(RefGemm, BlockscaleMatchesNaiveOnRandomRaggedShapes) {
  for (auto dist : {InputDistribution::Aiter, InputDistribution::Signed}) {
    for (auto fmt : {Fp8Format::E4M3FN, Fp8Format::E4M3FNUZ}) {
      const auto in = make_blockscale_inputs(5, 200, 300, fmt, 11, dist);
      std::vector<float> out(1000);
      ref_a8w8_blockscale(in, out.data(), 3);
      const auto naive = naive_blockscale(in);
      for (size_t i = 0; i < out.size(); ++i)
        ASSERT_NEAR(out[i], naive[i], 1e-6 * std::max(1.0, std::fabs(naive[i]))) << i;
    }
  }
}

TEST(RefGemm, ScalingAndLinearity) {
  const auto a = make_blockscale_inputs(4, 130, 256, Fp8Format::E4M3FN, 3, InputDistribution::Signed);
  std::vector<float> base(4 * 130), twice(4 * 130), sum(4 * 130), part(4 * 130);
  ref_a8w8_blockscale(a, base.data());
  auto b = a;
  for (float& s : b.x_scale) s *= 2.0f;
  ref_a8w8_blockscale(b, twice.data());
  for (size_t i = 0; i < base.size(); ++i) ASSERT_EQ(twice[i], 2.0f * base[i]);  // power of two: exact
  // Linear in x_scale: scales s1 + s2 give out(s1) + out(s2).
  auto c = a;
  const auto d = make_blockscale_inputs(4, 130, 256, Fp8Format::E4M3FN, 4, InputDistribution::Signed);
  for (size_t i = 0; i < c.x_scale.size(); ++i) c.x_scale[i] = d.x_scale[i];
  ref_a8w8_blockscale(c, part.data());
  for (size_t i = 0; i < c.x_scale.size(); ++i) c.x_scale[i] = a.x_scale[i] + d.x_scale[i];
  ref_a8w8_blockscale(c, sum.data());
  for (size_t i = 0; i < base.size(); ++i)
    ASSERT_NEAR(sum[i], base[i] + part[i], 1e-5 * std::max(1.0f, std::fabs(sum[i])));
}

TEST(RefGemm, PreshuffledLayoutGivesIdenticalResults) {
  const auto in = make_blockscale_inputs(3, 64, 256, Fp8Format::E4M3FNUZ, 9, InputDistribution::Signed);
  std::vector<float> plain(3 * 64), shuffled(3 * 64);
  ref_a8w8_blockscale(in, plain.data());
  const auto ws = preshuffle_weight(in.wq.data(), in.N, in.K);
  const auto xst = transpose(in.x_scale.data(), in.M, in.k_blocks());
  ref_a8w8_blockscale_preshuffled(in.M, in.N, in.K, in.fmt, in.xq.data(), xst.data(), ws.data(), in.w_scale.data(),
                                  shuffled.data());
  EXPECT_EQ(plain, shuffled);
  auto v = view_of(in);
  v.w_preshuffled = true;
  v.N = 200;  // not a multiple of 16
  EXPECT_THROW(ref_a8w8_blockscale(v, plain.data()), Error);
}

TEST(RefGemm, RowsAndThreadCountsAgreeWithFullRun) {
  const auto in = make_blockscale_inputs(37, 70, 200, Fp8Format::E4M3FN, 5);
  std::vector<float> one(37 * 70), three(37 * 70);
  ref_a8w8_blockscale(in, one.data(), 1);
  ref_a8w8_blockscale(in, three.data(), 3);
  EXPECT_EQ(one, three);
  const std::vector<int64_t> rows = {36, 0, 17};
  std::vector<float> sub(3 * 70);
  ref_a8w8_blockscale_rows(in, rows, sub.data(), 2);
  for (size_t i = 0; i < rows.size(); ++i)
    for (int n = 0; n < 70; ++n) ASSERT_EQ(sub[i * 70 + static_cast<size_t>(n)], one[static_cast<size_t>(rows[i] * 70 + n)]);
  const std::vector<int64_t> bad = {37};
  EXPECT_THROW(ref_a8w8_blockscale_rows(in, bad, sub.data()), Error);
}

TEST(RefGemm, PtpcHandComputedAndNaive) {
  PtpcGemmInputs in;
  in.M = 1;
  in.N = 1;
  in.K = 3;
  in.dtype = QDtype::Int8;
  in.xq = {1, 2, 3};
  in.wq = {4, 5, static_cast<uint8_t>(static_cast<int8_t>(-6))};
  in.x_scale = {0.5f};
  in.w_scale = {2.0f};
  float out = 0;
  ref_a8w8_ptpc(in, &out);
  EXPECT_EQ(out, (4 + 10 - 18) * 1.0f);
  for (auto d : {QDtype::Int8, QDtype::Fp8E4M3FN, QDtype::Fp8E4M3FNUZ}) {
    const auto r = make_ptpc_inputs(6, 50, 333, d, 2);
    std::vector<float> got(300);
    ref_a8w8_ptpc(r, got.data(), 2);
    for (int m = 0; m < 6; ++m)
      for (int n = 0; n < 50; ++n) {
        double s = 0;
        for (int k = 0; k < 333; ++k)
          s += double(decode_q(r.xq[static_cast<size_t>(m * 333 + k)], d)) * r.x_scale[static_cast<size_t>(m)] *
               (double(decode_q(r.wq[static_cast<size_t>(n * 333 + k)], d)) * r.w_scale[static_cast<size_t>(n)]);
        ASSERT_NEAR(got[static_cast<size_t>(m * 50 + n)], s, 1e-5 * std::max(1.0, std::fabs(s)));
      }
  }
}

TEST(RefGemm, SampleRows) {
  const auto r = sample_rows(1000, 10, 3);
  ASSERT_EQ(r.size(), 10u);
  EXPECT_EQ(r.front(), 0);
  EXPECT_EQ(r.back(), 999);
  EXPECT_TRUE(std::is_sorted(r.begin(), r.end()));
  EXPECT_EQ(std::set<int64_t>(r.begin(), r.end()).size(), 10u);
  EXPECT_EQ(sample_rows(5, 10, 3).size(), 5u);
  EXPECT_EQ(sample_rows(1000, 10, 3), r);
}

}  // namespace
}  // namespace cktune
