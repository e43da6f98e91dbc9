// The wgmma kernels' tails on the host: which tiles the persistent kernel's split tail splits, into how many pieces,
// and that the CTAs' pieces cover every k-block of every split tile exactly once, within the grid; the rows of the
// last M tile's x box.
#include "kernels/a8w8_blockscale/tail_plan.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace cktune::kernels::a8w8_blockscale::detail {
namespace {

TEST(TailPlan, SplitsOnlyAShortLastWave) {
  // No tile past a whole wave: nothing to split.
  EXPECT_EQ(tail_plan(100, 100, 56).tail, 0);  // fewer tiles than SMs: the launch takes one CTA a tile
  EXPECT_EQ(tail_plan(264, 132, 56).tail, 0);  // two whole waves
  // A last wave more than half full leaves fewer than two pieces a tile.
  EXPECT_EQ(tail_plan(1024, 132, 56).tail, 0);  // 7 waves and 100 tiles
  const TailPlan p = tail_plan(200, 132, 56);   // 1 wave and 68 tiles: 132 / 68 = 1 piece
  EXPECT_EQ(p.tail, 0);
  EXPECT_EQ(p.split, 1);
}

TEST(TailPlan, TheGridShapesThatEndOnAShortWave) {
  // 128 x 128 tiles on 132 SMs (docs/perf.md, 2026-11-29).
  const TailPlan a = tail_plan(544, 132, 56);  // 4096 x 2112 x 7168: 4 waves and 16 tiles
  EXPECT_EQ(a.tail, 16);
  EXPECT_EQ(a.split, 8);
  const TailPlan b = tail_plan(448, 132, 128);  // 1024 x 7168 x 16384: 3 waves and 52 tiles
  EXPECT_EQ(b.tail, 52);
  EXPECT_EQ(b.split, 2);
  const TailPlan c = tail_plan(8192, 132, 4);  // 4096 x 32768 x 512: 8 tiles, 16 pieces each would fit, K has 4
  EXPECT_EQ(c.tail, 8);
  EXPECT_EQ(c.split, 4);
}

TEST(TailPlan, PiecesCoverEveryKBlockOfEverySplitTileOnce) {
  for (int grid : {1, 2, 78, 114, 132})
    for (int tiles = 1; tiles <= 3 * grid + 5; ++tiles)
      for (int KB : {1, 2, 3, 7, 12, 56, 128}) {
        const TailPlan p = tail_plan(tiles, grid, KB);
        if (p.tail == 0) {
          EXPECT_EQ(p.split, 1);
          continue;
        }
        ASSERT_GE(p.split, 2);
        ASSERT_LE(p.split, KB);
        ASSERT_LE(p.tail * p.split, grid) << "a piece for a CTA that does not exist";
        // The whole tiles before the tail fill whole waves: every CTA takes the same number.
        ASSERT_EQ((tiles - p.tail) % grid, 0);
        std::vector<int> seen(static_cast<size_t>(p.tail) * KB, 0);
        for (int b = 0; b < p.tail * p.split; ++b) {
          const TailPiece q = tail_piece(p, b, KB);
          ASSERT_LT(q.tile, p.tail);
          ASSERT_LT(q.kb0, q.kb1) << "an empty piece";
          for (int kb = q.kb0; kb < q.kb1; ++kb) ++seen[static_cast<size_t>(q.tile) * KB + kb];
        }
        for (int v : seen) ASSERT_EQ(v, 1) << "tiles " << tiles << " grid " << grid << " KB " << KB;
      }
}

TEST(XTailRows, TheLastMTilesRowsRoundedUpToEight) {
  EXPECT_EQ(x_tail_rows(64, 64), 64);     // whole tiles: the tile's box
  EXPECT_EQ(x_tail_rows(8192, 128), 128);
  EXPECT_EQ(x_tail_rows(16, 64), 16);     // decode in a taller tile
  EXPECT_EQ(x_tail_rows(1, 64), 8);
  EXPECT_EQ(x_tail_rows(13, 16), 16);     // a swapped-operand token tile
  EXPECT_EQ(x_tail_rows(100, 64), 40);    // 64 + 36 rows
  EXPECT_EQ(x_tail_rows(2500, 128), 72);  // 19 x 128 + 68 rows
  EXPECT_EQ(x_tail_rows(127, 128), 128);  // rounds up to the tile
  for (int tile : {8, 16, 32, 64, 128, 256})
    for (int M = 1; M <= 3 * tile; ++M) {
      const int r = x_tail_rows(M, tile), held = M % tile == 0 ? tile : M % tile;
      EXPECT_GE(r, held) << M << " " << tile;  // every row the last tile holds is loaded
      EXPECT_LE(r, tile) << M << " " << tile;
      EXPECT_LT(r - held, 8) << M << " " << tile;  // at most 7 rows past M
      EXPECT_EQ(r % 8 == 0 || r == tile, true) << M << " " << tile;
    }
}

}  // namespace
}  // namespace cktune::kernels::a8w8_blockscale::detail
