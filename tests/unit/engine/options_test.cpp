#include "cktune/engine/options.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace cktune {
namespace {

ProblemKey gemm(int m, int n, int k) {
  ProblemKey key;
  key.family = Family::A8W8Blockscale;
  key.cells = {std::to_string(m), std::to_string(n), std::to_string(k)};
  return key;
}

TEST(RunOrder, CostliestFirstWithTheCheapestLeading) {
  // The DeepSeek-V3 grid's pattern: each (N, K) group from M = 1 up, so a big shape is followed by a small one.
  const std::vector<ProblemKey> keys = {gemm(1, 24576, 1536), gemm(8192, 24576, 1536), gemm(1, 32768, 512),
                                        gemm(8192, 32768, 512), gemm(64, 32768, 512)};
  const std::vector<size_t> order = run_order(keys);
  ASSERT_EQ(order.size(), keys.size());
  EXPECT_EQ(order.front(), 2u);  // 1 x 32768 x 512 is the cheapest
  // After the cheapest, by falling cost: no small shape right after a bigger one but the leader.
  for (size_t i = 2; i < order.size(); ++i)
    EXPECT_GE(shape_cost(keys[order[i - 1]]), shape_cost(keys[order[i]])) << "position " << i;
  EXPECT_EQ(order[1], 1u);  // 8192 x 24576 x 1536: the most FLOPs
}

TEST(RunOrder, EveryIndexOnceAndEqualCostsInInputOrder) {
  const std::vector<ProblemKey> keys = {gemm(16, 4096, 7168), gemm(8, 4096, 7168), gemm(16, 4096, 7168),
                                        gemm(16, 4096, 7168)};
  const std::vector<size_t> order = run_order(keys);
  EXPECT_EQ(order, (std::vector<size_t>{1, 0, 2, 3}));
  EXPECT_TRUE(run_order({}).empty());
  EXPECT_EQ(run_order({gemm(1, 1, 1)}), (std::vector<size_t>{0}));
}

}  // namespace
}  // namespace cktune
