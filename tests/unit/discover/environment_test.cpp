#include <gtest/gtest.h>

#include "cktune/discover/environment.hpp"

namespace cktune::discover {
namespace {

TEST(Visibility, ParsesListsAndSpaces) {
  auto v = parse_visibility("CUDA_VISIBLE_DEVICES", std::string(" 2 , 3,,GPU-8d1f"));
  EXPECT_TRUE(v.set);
  EXPECT_EQ(v.entries, (std::vector<std::string>{"2", "3", "GPU-8d1f"}));
  EXPECT_FALSE(v.hides_all);
}

TEST(Visibility, UnsetEmptyAndMinusOne) {
  EXPECT_FALSE(parse_visibility("HIP_VISIBLE_DEVICES", std::nullopt).set);
  auto empty = parse_visibility("CUDA_VISIBLE_DEVICES", std::string(""));
  EXPECT_TRUE(empty.set);
  EXPECT_TRUE(empty.hides_all);
  EXPECT_TRUE(parse_visibility("CUDA_VISIBLE_DEVICES", std::string("-1")).hides_all);
  EXPECT_FALSE(parse_visibility("ROCR_VISIBLE_DEVICES", std::string("0")).hides_all);
}

TEST(Visibility, ReportsEveryVariableInOrder) {
  EnvMap env = {{"ROCR_VISIBLE_DEVICES", "1"}, {"PATH", "/bin"}};
  auto all = visibility(env);
  ASSERT_EQ(all.size(), std::size(kVisibilityVariables));
  EXPECT_EQ(all[0].name, "CUDA_VISIBLE_DEVICES");
  EXPECT_FALSE(all[0].set);
  EXPECT_EQ(all[2].name, "ROCR_VISIBLE_DEVICES");
  EXPECT_TRUE(all[2].set);
  EXPECT_EQ(all[2].value, "1");
}

TEST(Environment, PrefixSelectionIsSortedAndExact) {
  EnvMap env = {{"AITER_CONFIG_GEMM_A8W8", "a"}, {"AITER_CONFIG_FMOE", "b"}, {"AITER_LOG_MORE", "1"},
                {"XAITER_CONFIG_X", "c"}};
  auto vars = variables_with_prefix(env, "AITER_CONFIG_");
  ASSERT_EQ(vars.size(), 2u);
  EXPECT_EQ(vars[0].first, "AITER_CONFIG_FMOE");
  EXPECT_EQ(vars[1].first, "AITER_CONFIG_GEMM_A8W8");
}

TEST(Environment, SplitsPathListsDroppingEmptyEntries) {
  EXPECT_EQ(split_path_list("/a/x.csv:/b/y.csv"), (std::vector<std::string>{"/a/x.csv", "/b/y.csv"}));
  EXPECT_EQ(split_path_list("::/a.csv: "), (std::vector<std::string>{"/a.csv"}));
  EXPECT_TRUE(split_path_list("").empty());
}

TEST(Environment, SnapshotSeesThisProcess) {
  ::setenv("CKTUNE_DISCOVER_TEST_VAR", "x=y", 1);
  auto env = current_environment();
  EXPECT_EQ(env_value(env, "CKTUNE_DISCOVER_TEST_VAR"), std::optional<std::string>("x=y"));
  EXPECT_EQ(env_value(env, "CKTUNE_DISCOVER_TEST_UNSET_VAR"), std::nullopt);
  ::unsetenv("CKTUNE_DISCOVER_TEST_VAR");
}

}  // namespace
}  // namespace cktune::discover
