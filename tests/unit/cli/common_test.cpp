#include "cli/common.hpp"

#include <gtest/gtest.h>

namespace cktune::cli {
namespace {

TEST(CliCommon, ClosestMatchFindsTyposOnly) {
  const std::vector<std::string> verbs = {"discover", "capture", "bench", "tune", "compare", "report", "merge", "list"};
  EXPECT_EQ(closest_match("tunee", verbs), "tune");
  EXPECT_EQ(closest_match("comprae", verbs), "compare");
  EXPECT_EQ(closest_match("reprot", verbs), "report");
  EXPECT_EQ(closest_match("lst", verbs), "list");
  EXPECT_EQ(closest_match("zzzzzz", verbs), "");
  EXPECT_EQ(closest_match("tune", verbs), "");  // an exact name is not a typo
  EXPECT_EQ(closest_match("--iter", {"--iters", "--warmup", "--timeout"}), "--iters");
  EXPECT_EQ(closest_match("--x", {"--iters", "--warmup"}), "");
}

// Runs a validator the way CLI11 does: an empty string means accepted.
std::string check(const CLI::Validator& v, std::string text) { return v(text); }

TEST(CliCommon, NumericValidatorsRejectNanInfAndOutOfRange) {
  for (const char* bad : {"nan", "NaN", "inf", "-inf", "abc", "1.5x", ""}) {
    EXPECT_NE(check(positive_finite(), bad), "") << bad;
    EXPECT_NE(check(non_negative_finite(), bad), "") << bad;
    EXPECT_NE(check(fraction_0_1(), bad), "") << bad;
  }
  EXPECT_EQ(check(positive_finite(), "0.25"), "");
  EXPECT_NE(check(positive_finite(), "0"), "");
  EXPECT_NE(check(positive_finite(), "-3"), "");
  EXPECT_EQ(check(non_negative_finite(), "0"), "");
  EXPECT_NE(check(non_negative_finite(), "-0.1"), "");
  EXPECT_EQ(check(fraction_0_1(), "1"), "");
  EXPECT_EQ(check(fraction_0_1(), "0"), "");
  EXPECT_NE(check(fraction_0_1(), "1.01"), "");
  EXPECT_NE(check(positive_finite(), "-3").find("> 0"), std::string::npos);
}

}  // namespace
}  // namespace cktune::cli
