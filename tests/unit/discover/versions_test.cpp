#include <gtest/gtest.h>

#include "cktune/discover/versions.hpp"

namespace cktune::discover {
namespace {

int cmp(std::string_view a, std::string_view b) {
  auto c = compare_versions(a, b);
  EXPECT_TRUE(c.has_value()) << a << " vs " << b;
  return c.value_or(99);
}

TEST(Versions, ReleaseNumbersCompareNumerically) {
  EXPECT_LT(cmp("0.5.5", "0.5.6"), 0);
  EXPECT_GT(cmp("0.5.10", "0.5.6"), 0);
  EXPECT_GT(cmp("0.10.0", "0.9.9"), 0);
  EXPECT_EQ(cmp("0.5.6", "0.5.6"), 0);
  EXPECT_EQ(cmp("0.5", "0.5.0"), 0);
  EXPECT_EQ(cmp("v1.2", "1.2"), 0);
}

TEST(Versions, PreAndPostReleasesOrderLikePep440) {
  EXPECT_LT(cmp("0.5.6rc1", "0.5.6"), 0);
  EXPECT_LT(cmp("0.5.6.dev3", "0.5.6a1"), 0);
  EXPECT_LT(cmp("0.5.6a1", "0.5.6b1"), 0);
  EXPECT_LT(cmp("0.5.6b2", "0.5.6rc1"), 0);
  EXPECT_GT(cmp("0.5.6.post2", "0.5.6"), 0);
  EXPECT_GT(cmp("0.5.6.post2", "0.5.6.post1"), 0);
  EXPECT_GT(cmp("0.5.6rc2", "0.5.6rc1"), 0);
  EXPECT_GT(cmp("0.5.6rc1", "0.5.5.post9"), 0);
}

TEST(Versions, LocalLabelsAreIgnoredForOrdering) {
  EXPECT_EQ(cmp("0.4.10+rocm6.4", "0.4.10"), 0);
  auto v = parse_version("2.11.0+rocm7.0");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->local, "rocm7.0");
  EXPECT_EQ(v->release, (std::vector<long>{2, 11, 0}));
}

TEST(Versions, UnparsableTextGivesNoAnswer) {
  EXPECT_FALSE(compare_versions("unknown", "0.5.6").has_value());
  EXPECT_FALSE(compare_versions("", "0.5.6").has_value());
}

TEST(Versions, MinimumsAreThePlaybooks) {
  EXPECT_EQ(kMinSglangVersion, "0.5.6");
  EXPECT_EQ(kMinAiterCommit.size(), 40u);
}

}  // namespace
}  // namespace cktune::discover
