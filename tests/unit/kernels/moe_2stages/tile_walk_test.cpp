// The wgmma MoE stages' tile walk and its multiply-high division, on the host, against plain division.
#include "kernels/moe_2stages/tile_walk.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace cktune::kernels::moe_2stages::detail {
namespace {

TEST(DivBy, MatchesIntegerDivisionForEveryDivisorUpTo4096) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> any(0, INT32_MAX);
  for (uint32_t d = 1; d <= 4096; ++d) {
    const DivBy by(d);
    const int di = static_cast<int>(d);
    // The small values, both sides of every multiple near the top of the range, and random ones.
    for (int n = 0; n < 3 * di + 2; ++n) ASSERT_EQ(by(n), n / di) << n << " / " << d;
    for (int64_t q = INT32_MAX / di - 2; q <= INT32_MAX / di; ++q)
      for (int e = -1; e <= 1; ++e) {
        const int64_t n = q * di + e;
        if (n < 0 || n > INT32_MAX) continue;
        ASSERT_EQ(by(static_cast<int>(n)), static_cast<int>(n) / di) << n << " / " << d;
      }
    for (int i = 0; i < 200; ++i) {
      const int n = any(rng);
      ASSERT_EQ(by(n), n / di) << n << " / " << d;
    }
  }
}

TEST(DivBy, LargeAndPowerOfTwoDivisors) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> any(0, INT32_MAX);
  for (uint32_t d : {1u << 12, (1u << 16) - 1, 1u << 16, 1000003u, (1u << 30) + 1, 1u << 30, 0x7fffffffu}) {
    const DivBy by(d);
    const auto di = static_cast<int64_t>(d);
    for (int i = 0; i < 20000; ++i) {
      const int n = any(rng);
      ASSERT_EQ(by(n), static_cast<int>(n / di)) << n << " / " << d;
    }
    ASSERT_EQ(by(INT32_MAX), static_cast<int>(INT32_MAX / di)) << d;
  }
}

// The order the walk must produce: groups of `group` column tiles (the last one narrower), inside a
// group block by block.
TileAt reference(int tile, int used, int cols, int group) {
  const int per_group = group * used;
  const int gi = tile / per_group, r = tile % per_group;
  const int width = group < cols - gi * group ? group : cols - gi * group;
  return {r / width, gi * group + r % width};
}

TEST(TileWalk, VisitsTheTilesInTheGroupedOrder) {
  long checked = 0;
  for (int used = 0; used <= 40; ++used)
    for (int cols = 1; cols <= 40; ++cols)
      for (int group : {1, 2, 3, 4, 5, 8, cols}) {
        if (group > cols) continue;
        const TileWalk walk(used, cols, group);
        for (int t = 0; t < used * cols; ++t) {
          const TileAt got = walk(t), want = reference(t, used, cols, group);
          ASSERT_EQ(got.block, want.block) << "tile " << t << " used " << used << " cols " << cols << " group " << group;
          ASSERT_EQ(got.col, want.col) << "tile " << t << " used " << used << " cols " << cols << " group " << group;
          // The one-tile form (plain division, no divisor set-up) gives the same place.
          const TileAt once = TileWalk::place(t, used, cols, group);
          ASSERT_EQ(once.block, want.block) << "place: tile " << t << " used " << used << " cols " << cols;
          ASSERT_EQ(once.col, want.col) << "place: tile " << t << " used " << used << " cols " << cols;
          ++checked;
        }
      }
  EXPECT_GT(checked, 1000000);  // ~2.4 M tile places
}

// Every tile exactly once: the walk is a permutation of (block, column).
TEST(TileWalk, IsAPermutationOfTheTiles) {
  for (int used : {1, 7, 33}) {
    for (int cols : {1, 5, 56}) {
      for (int group : {1, 4, cols}) {
        if (group > cols) continue;
        std::vector<int> seen(static_cast<size_t>(used * cols), 0);
        const TileWalk walk(used, cols, group);
        for (int t = 0; t < used * cols; ++t) {
          const TileAt at = walk(t);
          ASSERT_TRUE(at.block >= 0 && at.block < used && at.col >= 0 && at.col < cols);
          ++seen[static_cast<size_t>(at.block * cols + at.col)];
        }
        for (int v : seen) ASSERT_EQ(v, 1);
      }
    }
  }
}

}  // namespace
}  // namespace cktune::kernels::moe_2stages::detail
