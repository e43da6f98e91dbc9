#include "cktune/numerics/fp8.hpp"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace cktune {
namespace {

constexpr Fp8Format kFormats[] = {Fp8Format::E4M3FN, Fp8Format::E4M3FNUZ};

TEST(Fp8, NamedValuesDecode) {
  const auto fn = Fp8Format::E4M3FN, uz = Fp8Format::E4M3FNUZ;
  EXPECT_EQ(fp8_to_float(0x38, fn), 1.0f);             // exponent 7 = bias
  EXPECT_EQ(fp8_to_float(0x40, uz), 1.0f);             // exponent 8 = bias
  EXPECT_EQ(fp8_to_float(0x7e, fn), 448.0f);
  EXPECT_EQ(fp8_to_float(0x7f, uz), 240.0f);
  EXPECT_EQ(fp8_to_float(0x01, fn), std::ldexp(1.0f, -9));   // smallest subnormal
  EXPECT_EQ(fp8_to_float(0x01, uz), std::ldexp(1.0f, -10));
  EXPECT_EQ(fp8_to_float(0x08, fn), std::ldexp(1.0f, -6));   // smallest normal
  EXPECT_EQ(fp8_to_float(0x08, uz), std::ldexp(1.0f, -7));
  EXPECT_EQ(fp8_to_float(0xb8, fn), -1.0f);
  EXPECT_EQ(fp8_to_float(0xc0, uz), -1.0f);
  EXPECT_EQ(fp8_to_float(0x3b, fn), 1.375f);
  EXPECT_TRUE(std::isnan(fp8_to_float(0x7f, fn)));
  EXPECT_TRUE(std::isnan(fp8_to_float(0xff, fn)));
  EXPECT_TRUE(std::isnan(fp8_to_float(0x80, uz)));
  EXPECT_FALSE(std::isnan(fp8_to_float(0xff, uz)));
  EXPECT_EQ(fp8_to_float(0xff, uz), -240.0f);
  // e4m3fn has a negative zero; it compares equal to 0 but carries the sign.
  EXPECT_EQ(fp8_to_float(0x80, fn), 0.0f);
  EXPECT_TRUE(std::signbit(fp8_to_float(0x80, fn)));
  EXPECT_EQ(fp8_max(fn), 448.0f);
  EXPECT_EQ(fp8_max(uz), 240.0f);
}

TEST(Fp8, ExactlyTheExpectedNanCodes) {
  for (auto f : kFormats) {
    int nans = 0;
    for (int c = 0; c < 256; ++c) {
      const bool is_nan = std::isnan(fp8_to_float(static_cast<uint8_t>(c), f));
      EXPECT_EQ(is_nan, fp8_is_nan(static_cast<uint8_t>(c), f)) << c;
      nans += is_nan;
    }
    EXPECT_EQ(nans, f == Fp8Format::E4M3FN ? 2 : 1);
    EXPECT_TRUE(fp8_is_nan(fp8_nan_code(f), f));
  }
}

TEST(Fp8, AllCodesRoundTrip) {
  for (auto f : kFormats) {
    for (int c = 0; c < 256; ++c) {
      const auto code = static_cast<uint8_t>(c);
      const float v = fp8_to_float(code, f);
      if (std::isnan(v)) {
        EXPECT_TRUE(fp8_is_nan(float_to_fp8(v, f), f));
        continue;
      }
      EXPECT_EQ(float_to_fp8(v, f), code) << to_string(f) << " code " << c;
      EXPECT_EQ(float_to_fp8(v, f, Fp8Overflow::Nan), code) << to_string(f) << " code " << c;
    }
  }
}

TEST(Fp8, DecodedValuesAreStrictlyMonotonicInCode) {
  for (auto f : kFormats) {
    float prev = -1.0f;
    for (int c = 0; c <= 0x7f; ++c) {
      const float v = fp8_to_float(static_cast<uint8_t>(c), f);
      if (std::isnan(v)) continue;
      EXPECT_GT(v, prev) << c;
      prev = v;
      if (c > 0) {
        EXPECT_EQ(fp8_to_float(static_cast<uint8_t>(c | 0x80), f), -v);
      }
    }
  }
}

// Midpoints between neighbouring codes go to the code with the even mantissa; one float step
// either side goes to the nearer code.
TEST(Fp8, RoundsToNearestEvenAtEveryMidpoint) {
  for (auto f : kFormats) {
    const int top = f == Fp8Format::E4M3FN ? 0x7e : 0x7f;
    for (int c = 0; c < top; ++c) {
      for (int sign : {0, 0x80}) {
        // e4m3fnuz: the code below -2^-10 is 0x00 (zero has no sign there; 0x80 is NaN).
        const bool unsigned_zero = c == 0 && sign && f == Fp8Format::E4M3FNUZ;
        const auto lo = static_cast<uint8_t>(unsigned_zero ? 0 : (c | sign));
        const auto hi = static_cast<uint8_t>((c + 1) | sign);
        const float a = fp8_to_float(lo, f), b = fp8_to_float(hi, f);
        const float mid = (a + b) / 2;  // exact: both have few mantissa bits
        const uint8_t even = (c & 1) ? hi : lo;
        EXPECT_EQ(float_to_fp8(mid, f), even) << to_string(f) << " between codes " << int(lo) << " and " << int(hi);
        const float toward_a = std::nextafter(mid, a), toward_b = std::nextafter(mid, b);
        EXPECT_EQ(float_to_fp8(toward_a, f), lo);
        EXPECT_EQ(float_to_fp8(toward_b, f), hi);
      }
    }
  }
}

// Against brute force: the nearest finite code, ties to the even mantissa; negatives mirror.
TEST(Fp8, MatchesBruteForceNearestOnASweep) {
  for (auto f : kFormats) {
    const float mx = fp8_max(f);
    for (int i = 0; i <= 40000; ++i) {
      const float x = static_cast<float>(i) / 40000.0f * mx * (i % 3 == 0 ? 0.01f : 1.0f);
      int best = -1;
      float best_d = std::numeric_limits<float>::infinity();
      for (int c = 0; c <= 0x7f; ++c) {
        const float v = fp8_to_float(static_cast<uint8_t>(c), f);
        if (std::isnan(v)) continue;
        const float d = std::fabs(v - x);
        if (d < best_d || (d == best_d && (c & 1) == 0)) {
          best_d = d;
          best = c;
        }
      }
      ASSERT_EQ(float_to_fp8(x, f), best) << to_string(f) << " x=" << x;
      const int neg = best != 0 ? (best | 0x80) : (f == Fp8Format::E4M3FN ? 0x80 : 0x00);
      ASSERT_EQ(float_to_fp8(-x, f), neg) << to_string(f) << " x=" << -x;
    }
  }
}

TEST(Fp8, SaturationAndOverflowToNan) {
  const auto fn = Fp8Format::E4M3FN, uz = Fp8Format::E4M3FNUZ;
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(float_to_fp8(1e6f, fn), 0x7e);
  EXPECT_EQ(float_to_fp8(-1e6f, fn), 0xfe);
  EXPECT_EQ(float_to_fp8(inf, fn), 0x7e);
  EXPECT_EQ(float_to_fp8(-inf, uz), 0xff);
  EXPECT_EQ(float_to_fp8(1e6f, uz), 0x7f);
  // e4m3fn: 464 is the tie between 448 (even) and the NaN slot, so it stays 448; above -> NaN.
  EXPECT_EQ(float_to_fp8(464.0f, fn, Fp8Overflow::Nan), 0x7e);
  EXPECT_EQ(float_to_fp8(465.0f, fn, Fp8Overflow::Nan), 0x7f);
  EXPECT_EQ(float_to_fp8(-465.0f, fn, Fp8Overflow::Nan), 0xff);
  EXPECT_EQ(float_to_fp8(465.0f, fn, Fp8Overflow::Saturate), 0x7e);
  EXPECT_EQ(float_to_fp8(inf, fn, Fp8Overflow::Nan), 0x7f);
  // e4m3fnuz: 240 has an odd mantissa, so the tie 248 rounds up, past the top: NaN (as torch).
  EXPECT_EQ(float_to_fp8(247.9f, uz, Fp8Overflow::Nan), 0x7f);
  EXPECT_EQ(float_to_fp8(248.0f, uz, Fp8Overflow::Nan), 0x80);
  EXPECT_EQ(float_to_fp8(-300.0f, uz, Fp8Overflow::Nan), 0x80);
  EXPECT_EQ(float_to_fp8(248.0f, uz, Fp8Overflow::Saturate), 0x7f);
}

TEST(Fp8, NanAndZeroHandling) {
  const float qnan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(float_to_fp8(qnan, Fp8Format::E4M3FN), 0x7f);
  EXPECT_EQ(float_to_fp8(-qnan, Fp8Format::E4M3FN), 0xff);
  EXPECT_EQ(float_to_fp8(qnan, Fp8Format::E4M3FNUZ), 0x80);
  EXPECT_EQ(float_to_fp8(-qnan, Fp8Format::E4M3FNUZ), 0x80);
  EXPECT_EQ(float_to_fp8(-0.0f, Fp8Format::E4M3FN), 0x80);
  EXPECT_EQ(float_to_fp8(-0.0f, Fp8Format::E4M3FNUZ), 0x00);
  EXPECT_EQ(float_to_fp8(-1e-20f, Fp8Format::E4M3FNUZ), 0x00);
  EXPECT_EQ(float_to_fp8(1e-20f, Fp8Format::E4M3FN), 0x00);
}

TEST(Fp8, FormatNames) {
  EXPECT_EQ(to_string(Fp8Format::E4M3FN), "torch.float8_e4m3fn");
  EXPECT_EQ(to_string(Fp8Format::E4M3FNUZ), "torch.float8_e4m3fnuz");
  for (const auto& n : kFp8FormatNames) {
    EXPECT_EQ(fp8_format_from_string(n.text), n.value);
    EXPECT_EQ(fp8_format_from_string(n.short_name), n.value);
  }
  EXPECT_FALSE(fp8_format_from_string("torch.float8_e5m2").has_value());
}

}  // namespace
}  // namespace cktune
