// The one-launch MoE kernel's geometry on the host: its chunks cover each CTA's slices exactly, its shared
// memory regions do not overlap and start where the kernel's accesses need them to (16 bytes for the
// 16-byte copies and stores, 128 for the tokens' rows, 1024 for wgmma's swizzled operand), and the sizes
// it refuses are the ones it could not hold.
#include "kernels/moe_2stages/fused_geom.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace cktune::kernels::moe_2stages::detail {
namespace {

constexpr int kSmem = 227 * 1024;

TEST(FusedGeom, ChunksCoverEachSliceExactly) {
  for (int D : {512, 640, 1024, 2048, 4096, 7168})
    for (int I : {256, 384, 512})
      for (int ctas : {2, 4, 8, 16}) {
        if (fused_geom_why_not(ctas, 8, 1, D, I, kSmem) != nullptr) continue;
        const FusedGeom g = fused_geom(ctas, D, I);
        EXPECT_EQ(g.rg * ctas, I);
        EXPECT_EQ(g.g1 * 16, 2 * g.rg);                 // gate and up rows in 16-row groups
        EXPECT_LE(g.g1 * g.nk1, 8) << D << " " << I;    // one (group, k-block) a consumer warp
        EXPECT_EQ(g.chunks1 * g.nk1, D / 128) << D;     // every k-block once
        EXPECT_LE(2 * g.rg * g.nk1 * 128, kFusedSlot);  // a stage-1 chunk fits its slot
        EXPECT_EQ(g.rd * ctas, D);
        EXPECT_GE(g.groups2 * 64, g.rd);                // 64-row groups cover the output columns...
        EXPECT_LT((g.groups2 - 1) * 64, g.rd);          // ...with no empty group
        EXPECT_GE(2 * g.cpg2, I / 128);                 // 2 k-blocks a chunk cover inter
        EXPECT_EQ(g.chunks2, g.groups2 * g.cpg2);
      }
}

TEST(FusedGeom, SharedMemoryRegionsAreAlignedAndApart) {
  for (int D : {512, 640, 1152, 4096, 7168})
    for (int I : {256, 384, 512})
      for (int T = 1; T <= 8; ++T)
        for (int NS : {4, 6, 8}) {
          const FusedLayout l = fused_layout(NS, D, I, fused_x_rows(T));
          std::vector<std::pair<int, int>> regions = {
              {0, NS * kFusedSlot},
              {l.bars, 2 * NS * 8},
              {l.x, fused_x_rows(T) * l.x_pitch},
              {l.xs, kFusedCols * (D / 128) * 4},
              {l.w1s, (2 * I / 128) * (D / 128) * 4},
              {l.w2s, (D / 128) * (I / 128) * 4},
              {l.hred, kFusedConsumerWarps * 16 * kFusedCols * 4},
              {l.act, kFusedCols * I * 2},
              {l.aq, (I / 128) * 1024},
              {l.as, kFusedCols * 4 * 4},
              {l.route, (2 + 3 * kFusedCols) * 4},
              {l.ids, kFusedMaxPairs * 4},
              {l.weights, kFusedMaxPairs * 4},
              {l.seen, 128 * 4}};
          for (const auto& r : regions) EXPECT_EQ(r.first % 16, 0) << D << " " << I << " " << T << " at " << r.first;
          EXPECT_EQ(l.x % 128, 0);
          EXPECT_EQ(l.aq % 1024, 0);
          EXPECT_EQ(l.x_pitch % 16, 0);
          std::sort(regions.begin(), regions.end());
          for (size_t i = 1; i < regions.size(); ++i)
            EXPECT_GE(regions[i].first, regions[i - 1].first + regions[i - 1].second) << "regions overlap at " << regions[i].first;
          EXPECT_GE(l.total, regions.back().first + regions.back().second + 1024);  // + the base's alignment
        }
}

TEST(FusedGeom, RefusesWhatItCannotHold) {
  EXPECT_EQ(fused_geom_why_not(16, 8, 1, 7168, 256, kSmem), nullptr);  // DeepSeek-V3 TP8, 1 token
  EXPECT_EQ(fused_geom_why_not(8, 8, 8, 7168, 512, kSmem), nullptr);   // 64 gate rows a CTA, 8 tokens' rows
  EXPECT_NE(fused_geom_why_not(2, 8, 1, 7168, 256, kSmem), nullptr);   // 128 gate rows: more groups than warps
  EXPECT_NE(fused_geom_why_not(16, 8, 1, 7168, 384, kSmem), nullptr);  // 24 gate rows: not whole 16-row groups
  EXPECT_NE(fused_geom_why_not(16, 8, 1, 640, 256, kSmem), nullptr);   // 40 output columns a CTA
  EXPECT_NE(fused_geom_why_not(3, 8, 1, 7168, 384, kSmem), nullptr);   // 3 does not divide 7168
  EXPECT_NE(fused_geom_why_not(16, 8, 8, 16384, 256, kSmem), nullptr); // 8 rows of 16384 bytes + the ring
  EXPECT_EQ(fused_geom_why_not(16, 4, 8, 16384, 256, kSmem), nullptr); // with half the ring they fit
}

}  // namespace
}  // namespace cktune::kernels::moe_2stages::detail
