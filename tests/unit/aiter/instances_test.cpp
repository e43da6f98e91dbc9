// Every entry of cktune's copy of AITER's instance lists builds exactly the name written in
// shared/docs/aiter-kernels.md §4 (the expected names below are copied from that document, not computed).
#include "cktune/aiter/instances.hpp"

#include "cktune/core/error.hpp"
#include "cktune/engine/instance.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace cktune::aiter {
namespace {

struct IdName {
  int id;
  std::string_view name;
};
struct StageIdName {
  int stage;
  int id;
  std::string_view name;
};

// §4.1 table, in document order.
constexpr IdName kDocCkBlockscale[] = {
    {0, "a8w8_blockscale_1x128x128_256x128x128x128_16x16_32x32_2x2_8x32x1_8x32x1_1x32x1x8_8_1x1_intrawave_v3"},
    {1, "a8w8_blockscale_1x128x128_256x128x64x128_16x16_32x32_2x1_8x32x1_8x32x1_1x32x1x8_8_1x1_intrawave_v3"},
    {2, "a8w8_blockscale_1x128x128_256x64x128x128_16x16_32x32_1x2_8x32x1_8x32x1_1x32x1x8_8_1x1_intrawave_v3"},
    {3, "a8w8_blockscale_1x128x128_256x64x64x128_16x16_32x32_1x1_8x32x1_8x32x1_1x32x1x8_8_1x1_intrawave_v3"},
    {4, "a8w8_blockscale_1x128x128_256x16x256x128_8x16_16x16_1x4_16x16x1_8x32x1_1x16x1x16_8_1x2_intrawave_v1"},
    {5, "a8w8_blockscale_1x128x128_256x16x128x128_8x16_16x16_1x2_16x16x1_8x32x1_1x16x1x16_8_1x2_intrawave_v1"},
    {6, "a8w8_blockscale_1x128x128_256x16x64x128_8x16_16x16_1x1_16x16x1_8x32x1_1x16x1x16_4_1x1_intrawave_v1"},
    {7, "a8w8_blockscale_1x128x128_256x16x128x256_16x16_16x16_1x2_16x16x1_16x16x1_1x16x1x16_8_1x2_intrawave_v1"},
    {8, "a8w8_blockscale_1x128x128_256x16x64x256_16x16_16x16_1x1_16x16x1_16x16x1_1x16x1x16_4_1x1_intrawave_v1"},
    {9, "a8w8_blockscale_1x128x128_256x32x256x128_16x16_32x32_1x2_8x32x1_8x32x1_1x32x1x8_8_1x1_intrawave_v1"},
    {10, "a8w8_blockscale_1x128x128_256x32x128x128_16x16_32x32_1x1_8x32x1_8x32x1_1x32x1x8_8_1x1_intrawave_v1"},
    {11, "a8w8_blockscale_1x128x128_256x32x64x128_16x16_16x16_2x1_8x32x1_8x32x1_1x32x1x8_8_2x1_intrawave_v1"},
    {12, "a8w8_blockscale_1x128x128_256x32x128x256_16x16_32x32_1x1_16x16x1_16x16x1_1x32x1x8_8_1x1_intrawave_v1"},
    {13, "a8w8_blockscale_1x128x128_256x32x64x256_16x16_16x16_2x1_16x16x1_16x16x1_1x32x1x8_8_2x1_intrawave_v1"},
    {14, "a8w8_blockscale_1x128x128_256x64x256x128_16x16_32x32_2x2_8x32x1_8x32x1_1x32x1x8_8_1x1_intrawave_v1"},
    {15, "a8w8_blockscale_1x128x128_256x64x128x128_16x16_32x32_2x1_8x32x1_8x32x1_1x32x1x8_8_1x1_intrawave_v1"},
    {16, "a8w8_blockscale_1x128x128_256x64x64x128_16x16_32x32_1x1_8x32x1_8x32x1_1x32x1x8_8_1x1_intrawave_v1"},
    {17, "a8w8_blockscale_1x128x128_256x64x128x256_16x16_32x32_2x1_16x16x1_16x16x1_1x32x1x8_8_1x1_intrawave_v1"},
    {18, "a8w8_blockscale_1x128x128_256x64x64x256_16x16_32x32_1x1_16x16x1_16x16x1_1x32x1x8_8_1x1_intrawave_v1"},
    {-1, "a8w8_blockscale_1x128x128_256x16x128x256_16x16_16x16_1x2_16x16x1_16x16x1_1x16x1x16_8_1x2_intrawave_v1"},
};
// §4.3 table.
constexpr IdName kDocCkBpreshuffle[] = {
    {0, "a8w8_blockscale_bpreshuffle_1x128x128_256x128x128x128_16x16_16x16_8x32x1_8x32x1_1x32x1x8_8_2x1_intrawave_v3"},
    {1, "a8w8_blockscale_bpreshuffle_1x128x128_256x64x128x128_16x16_16x16_8x32x1_8x32x1_1x32x1x8_8_2x1_intrawave_v3"},
    {2, "a8w8_blockscale_bpreshuffle_1x128x128_256x64x64x128_16x16_16x16_8x32x1_8x32x1_1x32x1x8_8_2x1_intrawave_v3"},
    {3, "a8w8_blockscale_bpreshuffle_1x128x128_256x16x256x128_8x16_16x16_16x16x1_8x32x1_1x16x1x16_8_1x2_intrawave_v1"},
    {4, "a8w8_blockscale_bpreshuffle_1x128x128_256x16x128x128_8x16_16x16_16x16x1_8x32x1_1x16x1x16_8_1x2_intrawave_v1"},
    {5, "a8w8_blockscale_bpreshuffle_1x128x128_256x16x64x128_8x16_16x16_16x16x1_8x32x1_1x16x1x16_4_1x1_intrawave_v1"},
    {6, "a8w8_blockscale_bpreshuffle_1x128x128_256x16x128x256_16x16_16x16_16x16x1_16x16x1_1x16x1x16_8_1x2_intrawave_v1"},
    {7, "a8w8_blockscale_bpreshuffle_1x128x128_256x16x64x256_16x16_16x16_16x16x1_16x16x1_1x16x1x16_4_1x1_intrawave_v1"},
    {8, "a8w8_blockscale_bpreshuffle_1x128x128_256x32x256x128_16x16_16x16_8x32x1_8x32x1_1x32x1x8_8_2x1_intrawave_v1"},
    {9, "a8w8_blockscale_bpreshuffle_1x128x128_256x32x128x128_16x16_16x16_8x32x1_8x32x1_1x32x1x8_8_2x1_intrawave_v1"},
    {10, "a8w8_blockscale_bpreshuffle_1x128x128_256x32x64x128_16x16_16x16_8x32x1_8x32x1_1x32x1x8_8_2x1_intrawave_v1"},
    {11, "a8w8_blockscale_bpreshuffle_1x128x128_256x32x128x256_16x16_16x16_16x16x1_16x16x1_1x32x1x8_8_2x1_intrawave_v1"},
    {12, "a8w8_blockscale_bpreshuffle_1x128x128_256x32x64x256_16x16_16x16_16x16x1_16x16x1_1x32x1x8_8_2x1_intrawave_v1"},
    {13, "a8w8_blockscale_bpreshuffle_1x128x128_256x64x256x128_16x16_16x16_8x32x1_8x32x1_1x32x1x8_8_2x1_intrawave_v1"},
    {14, "a8w8_blockscale_bpreshuffle_1x128x128_256x64x128x128_16x16_16x16_8x32x1_8x32x1_1x32x1x8_8_2x1_intrawave_v1"},
    {15, "a8w8_blockscale_bpreshuffle_1x128x128_256x64x64x128_16x16_16x16_8x32x1_8x32x1_1x32x1x8_8_2x1_intrawave_v1"},
    {16, "a8w8_blockscale_bpreshuffle_1x128x128_256x64x128x256_16x16_16x16_16x16x1_16x16x1_1x32x1x8_8_2x1_intrawave_v1"},
    {17, "a8w8_blockscale_bpreshuffle_1x128x128_256x64x64x256_16x16_16x16_16x16x1_16x16x1_1x32x1x8_8_2x1_intrawave_v1"},
    {-1, "a8w8_blockscale_bpreshuffle_1x128x128_256x64x64x128_16x16_16x16_8x32x1_8x32x1_1x32x1x8_8_2x1_intrawave_v1"},
};
// §4.2 gfx942 and gfx950 tables.
constexpr IdName kDocCkTile942[] = {
    {0, "a8w8_blockscale_cktile_128x128x128_1x4x1_16x16x64_intrawave_0x1x0_1"},
    {1, "a8w8_blockscale_cktile_16x128x256_1x4x1_16x16x64_intrawave_0x1x0_1"},
    {2, "a8w8_blockscale_cktile_128x128x128_1x4x1_16x16x64_intrawave_0x1x0_2"},
    {3, "a8w8_blockscale_cktile_128x128x128_1x4x1_16x16x64_intrawave_0x1x0_3"},
    {4, "a8w8_blockscale_cktile_128x128x128_1x4x1_16x16x64_intrawave_0x1x0_4"},
    {5, "a8w8_blockscale_cktile_16x128x256_1x4x1_16x16x64_intrawave_0x1x0_2"},
    {6, "a8w8_blockscale_cktile_16x128x256_1x4x1_16x16x64_intrawave_0x1x0_3"},
    {7, "a8w8_blockscale_cktile_16x128x256_1x4x1_16x16x64_intrawave_0x1x0_4"},
    {-1, "a8w8_blockscale_cktile_128x128x128_1x4x1_16x16x64_intrawave_0x1x0_1"},
};
constexpr IdName kDocCkTile950[] = {
    {0, "a8w8_blockscale_cktile_16x128x256_1x4x1_16x16x128_intrawave_0x1x0_1"},
    {1, "a8w8_blockscale_cktile_16x128x256_1x4x1_16x16x128_intrawave_0x1x0_2"},
    {2, "a8w8_blockscale_cktile_16x128x256_1x4x1_16x16x64_intrawave_0x1x0_1"},
    {3, "a8w8_blockscale_cktile_16x128x256_1x4x1_16x16x64_intrawave_0x1x0_2"},
    {4, "a8w8_blockscale_cktile_32x128x128_1x4x1_16x16x128_intrawave_0x1x0_1"},
    {5, "a8w8_blockscale_cktile_32x128x128_1x4x1_16x16x128_intrawave_0x1x0_2"},
    {6, "a8w8_blockscale_cktile_32x128x128_1x4x1_16x16x64_intrawave_0x1x0_1"},
    {7, "a8w8_blockscale_cktile_32x128x128_1x4x1_16x16x64_intrawave_0x1x0_2"},
    {8, "a8w8_blockscale_cktile_128x128x128_1x4x1_16x16x128_intrawave_0x1x0_1"},
    {9, "a8w8_blockscale_cktile_128x128x128_1x4x1_16x16x128_intrawave_0x1x0_1"},
    {10, "a8w8_blockscale_cktile_128x128x128_2x2x1_16x16x128_intrawave_0x1x0_2"},
    {11, "a8w8_blockscale_cktile_192x256x128_4x2x1_16x16x128_intrawave_0x1x0_1"},
    {12, "a8w8_blockscale_cktile_192x256x128_4x2x1_16x16x128_intrawave_0x1x0_1_aqrm"},
    {13, "a8w8_blockscale_cktile_16x128x256_1x4x1_16x16x128_intrawave_0x1x0_3"},
    {14, "a8w8_blockscale_cktile_16x128x256_1x4x1_16x16x128_intrawave_0x1x0_4"},
    {15, "a8w8_blockscale_cktile_16x128x256_1x4x1_16x16x64_intrawave_0x1x0_3"},
    {16, "a8w8_blockscale_cktile_16x128x256_1x4x1_16x16x64_intrawave_0x1x0_4"},
    {17, "a8w8_blockscale_cktile_32x128x128_1x4x1_16x16x128_intrawave_0x1x0_3"},
    {18, "a8w8_blockscale_cktile_32x128x128_1x4x1_16x16x128_intrawave_0x1x0_4"},
    {19, "a8w8_blockscale_cktile_32x128x128_1x4x1_16x16x64_intrawave_0x1x0_3"},
    {20, "a8w8_blockscale_cktile_32x128x128_1x4x1_16x16x64_intrawave_0x1x0_4"},
    {21, "a8w8_blockscale_cktile_128x128x128_1x4x1_16x16x128_intrawave_0x1x0_2"},
    {22, "a8w8_blockscale_cktile_128x128x128_1x4x1_16x16x128_intrawave_0x1x0_3"},
    {23, "a8w8_blockscale_cktile_128x128x128_1x4x1_16x16x128_intrawave_0x1x0_4"},
    {24, "a8w8_blockscale_cktile_128x128x128_2x2x1_16x16x128_intrawave_0x1x0_1"},
    {25, "a8w8_blockscale_cktile_128x128x128_2x2x1_16x16x128_intrawave_0x1x0_3"},
    {26, "a8w8_blockscale_cktile_128x128x128_2x2x1_16x16x128_intrawave_0x1x0_4"},
    {27, "a8w8_blockscale_cktile_192x256x128_4x2x1_16x16x128_intrawave_0x1x0_2"},
    {28, "a8w8_blockscale_cktile_192x256x128_4x2x1_16x16x128_intrawave_0x1x0_3"},
    {29, "a8w8_blockscale_cktile_192x256x128_4x2x1_16x16x128_intrawave_0x1x0_4"},
    {30, "a8w8_blockscale_cktile_192x256x128_4x2x1_16x16x128_intrawave_0x1x0_2_aqrm"},
    {31, "a8w8_blockscale_cktile_192x256x128_4x2x1_16x16x128_intrawave_0x1x0_3_aqrm"},
    {32, "a8w8_blockscale_cktile_192x256x128_4x2x1_16x16x128_intrawave_0x1x0_4_aqrm"},
    {-1, "a8w8_blockscale_cktile_128x128x128_1x4x1_16x16x64_intrawave_0x1x0_1"},
};
// §4.5 gfx942 fp8 blockscale, silu, doweight_stage1=False (gfx950: "the same list and the same names").
constexpr StageIdName kDocMoeBlockscale[] = {
    {1, 0, "moe_ck2stages_gemm1_256x16x128x256_1x4_MulABScaleExpertWeightA8W8blkscale_v1_Nswizzle0_Quant4_MulRoutedWeight0_silu_F8_F8_B16"},
    {1, 1, "moe_ck2stages_gemm1_128x16x128x128_1x2_MulABScaleExpertWeightA8W8blkscale_v1_Nswizzle0_Quant4_MulRoutedWeight0_silu_F8_F8_B16"},
    {1, 2, "moe_ck2stages_gemm1_256x32x128x128_1x4_MulABScaleExpertWeightA8W8blkscale_v1_Nswizzle0_Quant4_MulRoutedWeight0_silu_F8_F8_B16"},
    {1, 3, "moe_ck2stages_gemm1_256x64x128x128_1x4_MulABScaleExpertWeightA8W8blkscale_v3_Nswizzle0_Quant4_MulRoutedWeight0_silu_F8_F8_B16"},
    {1, 5, "moe_ck2stages_gemm1_256x64x128x128_1x4_MulABScaleExpertWeightA8W8blkscale_v1_Nswizzle0_Quant4_MulRoutedWeight0_silu_F8_F8_B16"},
    {2, 0, "moe_ck2stages_gemm2_256x16x128x256_1x4_MulABScaleExpertWeightA8W8blkscale_v1_Nswizzle0_Quant4_MulRoutedWeight1_F8_F8_B16"},
    {2, 1, "moe_ck2stages_gemm2_128x16x128x128_1x2_MulABScaleExpertWeightA8W8blkscale_v1_Nswizzle0_Quant4_MulRoutedWeight1_F8_F8_B16"},
    {2, 2, "moe_ck2stages_gemm2_256x32x128x128_1x4_MulABScaleExpertWeightA8W8blkscale_v1_Nswizzle0_Quant4_MulRoutedWeight1_F8_F8_B16"},
    {2, 3, "moe_ck2stages_gemm2_256x64x128x128_1x4_MulABScaleExpertWeightA8W8blkscale_v3_Nswizzle0_Quant4_MulRoutedWeight1_F8_F8_B16"},
    {2, 5, "moe_ck2stages_gemm2_256x64x128x128_1x4_MulABScaleExpertWeightA8W8blkscale_v1_Nswizzle0_Quant4_MulRoutedWeight1_F8_F8_B16"},
};

template <class List, class Doc, class NameFn>
void expect_same(const List& list, const Doc& doc, NameFn name_of, const char* what) {
  ASSERT_EQ(list.size(), std::size(doc)) << what;
  for (size_t i = 0; i < list.size(); ++i) {
    EXPECT_EQ(list[i].id, doc[i].id) << what << " entry " << i;
    EXPECT_EQ(name_of(list[i]), doc[i].name) << what << " id " << doc[i].id;
  }
}

TEST(AiterInstances, CkBlockscaleNamesMatchTheDocument) {
  expect_same(ck_blockscale_instances(), kDocCkBlockscale, ck_blockscale_name, "a8w8_blockscale ck");
  // The untuned default (-1) is id 7's kernel (§4.1).
  EXPECT_EQ(ck_blockscale_name(ck_blockscale_instances().back()), ck_blockscale_name(ck_blockscale_instances()[7]));
}

TEST(AiterInstances, CkBpreshuffleNamesMatchTheDocument) {
  expect_same(ck_blockscale_bpreshuffle_instances(), kDocCkBpreshuffle, ck_blockscale_bpreshuffle_name,
              "a8w8_blockscale_bpreshuffle ck");
  EXPECT_EQ(ck_blockscale_bpreshuffle_name(ck_blockscale_bpreshuffle_instances().back()),
            "a8w8_blockscale_bpreshuffle_1x128x128_256x64x64x128_16x16_16x16_8x32x1_8x32x1_1x32x1x8_8_2x1_intrawave_v1");
}

TEST(AiterInstances, CkTileNamesMatchTheDocumentPerGfx) {
  expect_same(cktile_blockscale_instances("gfx942"), kDocCkTile942, cktile_blockscale_name, "cktile gfx942");
  expect_same(cktile_blockscale_instances("gfx950"), kDocCkTile950, cktile_blockscale_name, "cktile gfx950");
  // 8 and 33 entries after expand_blockpercu, plus the default -1.
  EXPECT_EQ(cktile_blockscale_instances("gfx942").size(), 9u);
  EXPECT_EQ(cktile_blockscale_instances("gfx950").size(), 34u);
  EXPECT_TRUE(cktile_blockscale_instances("gfx90a").empty());
  EXPECT_TRUE(cktile_blockscale_instances("sm_90").empty());
}

TEST(AiterInstances, MoeBlockscaleNamesMatchTheDocument) {
  for (std::string_view gfx : {"gfx942", "gfx950"}) {
    auto tiles = moe_ck_blockscale_tiles(gfx);
    ASSERT_EQ(tiles.size(), std::size(kDocMoeBlockscale)) << gfx;
    for (size_t i = 0; i < tiles.size(); ++i) {
      EXPECT_EQ(tiles[i].stage, kDocMoeBlockscale[i].stage);
      EXPECT_EQ(tiles[i].id, kDocMoeBlockscale[i].id);
      EXPECT_EQ(moe_ck_blockscale_name(tiles[i], {}), kDocMoeBlockscale[i].name) << gfx << " entry " << i;
    }
  }
  EXPECT_TRUE(moe_ck_blockscale_tiles("gfx1250").empty());
}

TEST(AiterInstances, MoeSplitKNameIsTheDocumentsExample) {
  // §4.5: "e.g. moe_ck2stages_gemm1_256x32x128x128_1x4_MulABScaleExpertWeightA8W8blkscaleSplitk_v1_..."
  const MoeCkTile* tile = nullptr;
  for (const auto& t : moe_ck_blockscale_tiles("gfx942"))
    if (t.stage == 1 && t.m_per_block == 32) tile = &t;
  ASSERT_NE(tile, nullptr);
  EXPECT_EQ(moe_ck_blockscale_name(*tile, {"silu", false, true}),
            "moe_ck2stages_gemm1_256x32x128x128_1x4_MulABScaleExpertWeightA8W8blkscaleSplitk_v1_Nswizzle0_Quant4_"
            "MulRoutedWeight0_silu_F8_F8_B16");
  // Split-K changes stage 1 only; stage-2 names stay the same.
  for (const auto& t : moe_ck_blockscale_tiles("gfx942"))
    if (t.stage == 2) {
      EXPECT_EQ(moe_ck_blockscale_name(t, {"silu", false, true}), moe_ck_blockscale_name(t, {}));
    }
  // doweight_stage1 moves MulRoutedWeight1 to stage 1.
  EXPECT_NE(moe_ck_blockscale_name(*tile, {"silu", true, false}).find("_MulRoutedWeight1_silu_"), std::string::npos);
}

TEST(AiterInstances, CheckGemmKernel) {
  auto ck = ck_blockscale_instances();
  std::string n0 = ck_blockscale_name(ck[0]);
  EXPECT_EQ(check_gemm_kernel(Family::A8W8Blockscale, "gfx942", "ck", 0, n0).verdict, GemmVerdict::Known);
  EXPECT_EQ(check_gemm_kernel(Family::A8W8Blockscale, "gfx950", "ck", 0, n0).verdict, GemmVerdict::Known);
  auto stale = check_gemm_kernel(Family::A8W8Blockscale, "gfx950", "ck", 5, n0);
  EXPECT_EQ(stale.verdict, GemmVerdict::StaleId);
  EXPECT_EQ(stale.name_id, 0);
  EXPECT_EQ(stale.expected, ck_blockscale_name(ck[5]));
  // One character off is unknown; a bpreshuffle name in the plain family too.
  EXPECT_EQ(check_gemm_kernel(Family::A8W8Blockscale, "gfx942", "ck", 0, n0 + "x").verdict, GemmVerdict::Unknown);
  EXPECT_EQ(check_gemm_kernel(Family::A8W8Blockscale, "gfx942", "ck", 0,
                              ck_blockscale_bpreshuffle_name(ck_blockscale_bpreshuffle_instances()[0]))
                .verdict,
            GemmVerdict::Unknown);
  // gfx950's CK-tile list is not gfx942's.
  std::string t950 = cktile_blockscale_name(cktile_blockscale_instances("gfx950")[0]);
  EXPECT_EQ(check_gemm_kernel(Family::A8W8Blockscale, "gfx950", "cktile", 0, t950).verdict, GemmVerdict::Known);
  EXPECT_EQ(check_gemm_kernel(Family::A8W8Blockscale, "gfx942", "cktile", 0, t950).verdict, GemmVerdict::Unknown);
  // No list: other archs, other libtypes.
  EXPECT_EQ(check_gemm_kernel(Family::A8W8Blockscale, "gfx90a", "ck", 0, n0).verdict, GemmVerdict::NoList);
  EXPECT_EQ(check_gemm_kernel(Family::A8W8Blockscale, "gfx942", "asm", 0, n0).verdict, GemmVerdict::NoList);
  EXPECT_EQ(check_gemm_kernel(Family::A8W8BlockscaleBpreshuffle, "gfx950", "cktile", 0, t950).verdict,
            GemmVerdict::NoList);
}

TEST(AiterInstances, MoeNameLookupAndBuildNames) {
  std::string s1 = std::string(kDocMoeBlockscale[0].name);
  EXPECT_EQ(moe_ck_name_known("gfx942", s1), true);
  EXPECT_EQ(moe_ck_name_known("gfx950", s1), true);
  EXPECT_EQ(moe_ck_name_known("gfx90a", s1), std::nullopt);
  std::string wrong = s1;
  wrong.replace(wrong.find("256x16x128x256"), 14, "256x16x128x512");
  EXPECT_EQ(moe_ck_name_known("gfx942", wrong), false);
  EXPECT_EQ(moe_ck_name_known("gfx942", "_ZN5aiter47fmoe_stage1_bf16_pertokenFp8_g1u1_32x64_4tg_pf3E"), std::nullopt);
  auto gelu = moe_variant_of(
      "moe_ck2stages_gemm1_256x16x128x256_1x4_MulABScaleExpertWeightA8W8blkscale_v1_Nswizzle0_Quant4_"
      "MulRoutedWeight1_gelu_F8_F8_B16");
  ASSERT_TRUE(gelu);
  EXPECT_EQ(gelu->act, "gelu");
  EXPECT_TRUE(gelu->doweight_stage1);

  // Distinct names: the CK default -1 repeats id 7 (bpreshuffle: id 15; gfx942 CK-tile: id 0); gfx950's
  // CK-tile ids 8 and 9 are one kernel, and its default -1 (16x16x64 warp tile) is none of ids 0..32.
  EXPECT_EQ(build_names(Family::A8W8Blockscale, "gfx942", "ck").size(), 19u);
  EXPECT_EQ(build_names(Family::A8W8BlockscaleBpreshuffle, "gfx950", "ck").size(), 18u);
  EXPECT_EQ(build_names(Family::A8W8Blockscale, "gfx942", "cktile").size(), 8u);
  EXPECT_EQ(build_names(Family::A8W8Blockscale, "gfx950", "cktile").size(), 33u);
  EXPECT_EQ(build_names(Family::Moe2Stages, "gfx950", "ck").size(), 10u);
  EXPECT_TRUE(build_names(Family::A8W8Blockscale, "sm_90", "ck").empty());
  // is_cktune_libtype mirrors engine's provider names (the aiter layer sits below engine): every provider
  // whose kernels AITER cannot load, and not AITER's own (ck, cktile).
  for (const auto& p : kProviderNames) EXPECT_EQ(is_cktune_libtype(p.text), !aiter_can_load(p.value)) << p.text;
  for (std::string_view l : {"ck", "cktile", "asm", "triton", "hipblaslt", ""}) EXPECT_FALSE(is_cktune_libtype(l));
  // CU_NUM keys AMD rows as AITER looks them up; NVIDIA and CPU keep the device's count; garbage is an error.
  EXPECT_EQ(aiter_cu_num("gfx942", 304, nullptr), 304);
  EXPECT_EQ(aiter_cu_num("gfx942", 304, "80"), 80);
  EXPECT_EQ(aiter_cu_num("sm_90", 132, "80"), 132);
  EXPECT_EQ(aiter_cu_num("cpu", 2, "80"), 2);
  for (const char* bad : {"", "0", "-8", "8x", "abc", " 80", "999999999999"})
    EXPECT_THROW(aiter_cu_num("gfx950", 256, bad), Error) << bad;
  EXPECT_TRUE(is_amd_gfx("gfx942"));
  EXPECT_FALSE(is_amd_gfx("sm_90"));
  EXPECT_FALSE(is_amd_gfx("cpu"));
}

}  // namespace
}  // namespace cktune::aiter
