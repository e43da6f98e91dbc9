#include "cktune/numerics/bf16.hpp"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace cktune {
namespace {

float from_bits(uint32_t b) { return std::bit_cast<float>(b); }

TEST(Bf16, ExactValuesAndRoundTripOfAllCodes) {
  EXPECT_EQ(float_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(float_to_bf16(-2.0f), 0xc000);
  for (uint32_t c = 0; c < 65536; ++c) {
    const float v = bf16_to_float(static_cast<uint16_t>(c));
    if (std::isnan(v)) {
      EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(v))));
    } else {
      EXPECT_EQ(float_to_bf16(v), c);
    }
  }
}

TEST(Bf16, RoundsToNearestEven) {
  EXPECT_EQ(float_to_bf16(from_bits(0x3f808000)), 0x3f80);  // tie, even stays
  EXPECT_EQ(float_to_bf16(from_bits(0x3f818000)), 0x3f82);  // tie, odd rounds up
  EXPECT_EQ(float_to_bf16(from_bits(0x3f808001)), 0x3f81);  // above the tie
  EXPECT_EQ(float_to_bf16(from_bits(0x3f807fff)), 0x3f80);  // below the tie
  EXPECT_EQ(float_to_bf16(from_bits(0xbf818000)), 0xbf82);  // sign symmetric
  EXPECT_EQ(round_to_bf16(1.00390625f), 1.0f);             // 1 + 2^-8: tie to even
}

TEST(Bf16, NanStaysNanAndOverflowGoesToInf) {
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(from_bits(0x7f800001)))));  // would truncate to Inf
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(from_bits(0xffffffff)))));
  EXPECT_TRUE(std::isnan(bf16_to_float(kBf16QuietNan)));
  EXPECT_EQ(bf16_to_float(float_to_bf16(std::numeric_limits<float>::max())), std::numeric_limits<float>::infinity());
  EXPECT_EQ(bf16_to_float(float_to_bf16(-std::numeric_limits<float>::infinity())),
            -std::numeric_limits<float>::infinity());
}

}  // namespace
}  // namespace cktune
