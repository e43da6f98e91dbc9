#include "cktune/formats/family.hpp"

#include <gtest/gtest.h>

#include <set>

namespace cktune {

TEST(Family, NamesRoundTripAndAreUnique) {
  std::set<std::string_view> names;
  for (Family f : kAllFamilies) {
    EXPECT_EQ(family_from_name(family_name(f)), f);
    EXPECT_TRUE(names.insert(family_name(f)).second);
  }
  EXPECT_FALSE(family_from_name("a8w8_nonsense").has_value());
}

TEST(Family, TunedHeaderStartsWithGfxCuNumThenKey) {
  for (Family f : kAllFamilies) {
    const auto& s = spec(f);
    ASSERT_GE(s.tuned.size(), 2 + s.untuned.size());
    EXPECT_EQ(s.tuned[0], "gfx");
    EXPECT_EQ(s.tuned[1], "cu_num");
    for (size_t i = 0; i < s.untuned.size(); ++i) EXPECT_EQ(s.tuned[2 + i], s.untuned[i]) << s.name;
  }
}

TEST(Family, FromFileNamePrefersTheLongestStem) {
  EXPECT_EQ(family_from_file_name("/tmp/aiter_configs/a8w8_blockscale_bpreshuffle_tuned_gemm.csv"),
            Family::A8W8BlockscaleBpreshuffle);
  EXPECT_EQ(family_from_file_name("/tmp/aiter_configs/a8w8_blockscale_tuned_gemm.csv"), Family::A8W8Blockscale);
  EXPECT_EQ(family_from_file_name("/opt/aiter/aiter/configs/a8w8_tuned_gemm.csv"), Family::A8W8);
  EXPECT_EQ(family_from_file_name("a8w8_bpreshuffle_tuned_gemm.csv"), Family::A8W8Bpreshuffle);
  EXPECT_EQ(family_from_file_name("model_configs/a8w8_blockscale_tuned_gemm_ds_v3.csv"), Family::A8W8Blockscale);
  EXPECT_EQ(family_from_file_name("dsv3_a8w8_bpreshuffle_tuned_gemm.csv"), Family::A8W8Bpreshuffle);
  EXPECT_EQ(family_from_file_name("a8w8_blockscale_tuned_fmoe_ds_v3.csv"), Family::Moe2Stages);
  EXPECT_EQ(family_from_file_name("bf16_tuned_batched_gemm.csv"), Family::BatchedBf16);
  EXPECT_EQ(family_from_file_name("a8w8_untuned_batched_gemm.csv"), Family::BatchedA8W8);
  EXPECT_FALSE(family_from_file_name("CKGEMM").has_value());
}

}  // namespace cktune
