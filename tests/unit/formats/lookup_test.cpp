#include "cktune/formats/lookup.hpp"

#include <gtest/gtest.h>

namespace cktune {
namespace {

TEST(Lookup, NextPow2) {
  EXPECT_EQ(next_pow2(0), 1);
  EXPECT_EQ(next_pow2(1), 1);
  EXPECT_EQ(next_pow2(3), 4);
  EXPECT_EQ(next_pow2(1024), 1024);
  EXPECT_EQ(next_pow2(1025), 2048);
}

TEST(Lookup, GemmPaddedMByGranularity) {
  EXPECT_EQ(gemm_padded_m(1), 16);
  EXPECT_EQ(gemm_padded_m(16), 16);
  EXPECT_EQ(gemm_padded_m(17), 32);
  EXPECT_EQ(gemm_padded_m(256), 256);
  EXPECT_EQ(gemm_padded_m(257), 288);
  EXPECT_EQ(gemm_padded_m(1024), 1024);
  EXPECT_EQ(gemm_padded_m(1025), 1088);
  EXPECT_EQ(gemm_padded_m(4096), 4096);
  EXPECT_EQ(gemm_padded_m(4097), 4224);
  EXPECT_EQ(gemm_padded_m_pow2(300), 512);
}

TEST(Lookup, MoeTokenKeyAndTiers) {
  EXPECT_EQ(moe_token_key(1), 1);
  EXPECT_EQ(moe_token_key(3), 4);
  EXPECT_EQ(moe_token_key(16383), 16384);
  EXPECT_EQ(moe_token_key(16385), 32768);
  EXPECT_EQ(moe_token_key(32768), 32768);
  EXPECT_EQ(moe_token_key(100000), 32768);
  EXPECT_EQ(moe_token_key(131072), 131072);
  EXPECT_EQ(moe_token_key(1 << 20), 131072);
}

TEST(Lookup, MoeReachableTokens) {
  for (std::int64_t t : {1, 2, 4, 1024, 16384, 32768, 131072}) EXPECT_TRUE(moe_token_reachable(t)) << t;
  // 56 is in AITER's own tuned_fmoe.csv and can never be looked up (56 -> 64).
  for (std::int64_t t : {0, 3, 56, 20480, 65536, 262144}) EXPECT_FALSE(moe_token_reachable(t)) << t;
}

}  // namespace
}  // namespace cktune
