#include "cktune/compare/aiter_optest.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "cktune/compare/compare.hpp"
#include "cktune/core/error.hpp"
#include "cktune/core/io.hpp"

namespace cktune {
namespace {

const std::string kData = CKTUNE_TEST_DATA "/aiter-optest/";

const ResultRow* find(const std::vector<ResultRow>& rows, Family f, const std::vector<std::string>& cells,
                      const std::string& backend) {
  for (const auto& r : rows)
    if (r.key.family == f && r.key.cells == cells && r.backend == backend) return &r;
  return nullptr;
}

TEST(AiterOptest, DetectsTablesByColumns) {
  EXPECT_EQ(detect_aiter_table({"dtype", "m", "n", "k", "ck_preshuffle", "ck us"}), AiterTableKind::GemmA8W8Blockscale);
  EXPECT_EQ(detect_aiter_table({"token", "model_dim", "inter_dim", "E", "topk", "actType", "dtype", "AQDType",
                                "WQDType", "qType", "use_g1u1", "doweight_stage1", "us"}),
            AiterTableKind::Moe2Stage);
  EXPECT_FALSE(detect_aiter_table({"M", "N", "K", "us"}));
  EXPECT_FALSE(detect_aiter_table({"token", "model_dim", "us"}));
}

TEST(AiterOptest, BlockscaleMarkdownFromLog) {
  std::string path = kData + "test_gemm_a8w8_blockscale_before.log";
  auto tables = find_aiter_markdown_tables(read_input(path), path);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].kind, AiterTableKind::GemmA8W8Blockscale);
  EXPECT_EQ(tables[0].cells.rows.size(), 8u);
  EXPECT_EQ(tables[0].cells.header_line, 11u);
  auto rows = aiter_table_rows(tables[0]);
  // 8 rows x (ck, asm) + 4 preshuffled rows with triton.
  EXPECT_EQ(rows.size(), 20u);

  const ResultRow* ck = find(rows, Family::A8W8BlockscaleBpreshuffle, {"1", "24576", "1536"}, "aiter-ck");
  ASSERT_NE(ck, nullptr);
  EXPECT_EQ(ck->role, ResultRole::Dispatch);
  EXPECT_DOUBLE_EQ(ck->us, 21.4312);
  EXPECT_NEAR(ck->tflops, 3.52278, 1e-9);
  EXPECT_NEAR(ck->bw, 1761.46, 1e-6);  // TB/s in the table, GB/s in results
  EXPECT_EQ(ck->reason, path + ":13");

  const ResultRow* plain = find(rows, Family::A8W8Blockscale, {"1", "24576", "1536"}, "aiter-ck");
  ASSERT_NE(plain, nullptr);
  EXPECT_DOUBLE_EQ(plain->us, 23.1178);
  const ResultRow* asm_row = find(rows, Family::A8W8Blockscale, {"1", "24576", "1536"}, "aiter-asm");
  ASSERT_NE(asm_row, nullptr);
  EXPECT_EQ(asm_row->role, ResultRole::Baseline);
  // Triton did not run for non-preshuffled weights: nan cells give no row.
  EXPECT_EQ(find(rows, Family::A8W8Blockscale, {"1", "24576", "1536"}, "aiter-triton"), nullptr);
  EXPECT_NE(find(rows, Family::A8W8BlockscaleBpreshuffle, {"2048", "24576", "1536"}, "aiter-triton"), nullptr);
}

TEST(AiterOptest, BlockscaleCsvAndMarkdownAgree) {
  CompareInput md = load_compare_input(kData + "test_gemm_a8w8_blockscale_after.log");
  CompareInput csv = load_compare_input(kData + "gemm_a8w8_blockscale_after.csv");
  EXPECT_EQ(md.format, "aiter-markdown:test_gemm_a8w8_blockscale");
  EXPECT_EQ(csv.format, "aiter-csv:test_gemm_a8w8_blockscale");
  ASSERT_EQ(md.rows.size(), csv.rows.size());
  for (const auto& r : md.rows) {
    const ResultRow* o = find(csv.rows, r.key.family, r.key.cells, r.backend);
    ASSERT_NE(o, nullptr) << r.key.to_string() << " " << r.backend;
    // The markdown shows 6 significant digits.
    EXPECT_NEAR(o->us, r.us, r.us * 1e-5) << r.key.to_string();
  }
}

TEST(AiterOptest, MoeMarkdownKeys) {
  CompareInput in = load_compare_input(kData + "test_moe_2stage_before.log");
  EXPECT_EQ(in.format, "aiter-markdown:test_moe_2stage");
  ASSERT_EQ(in.rows.size(), 6u);
  const ResultRow& r = in.rows[1];
  EXPECT_EQ(r.key.family, Family::Moe2Stages);
  EXPECT_EQ(r.key.cells,
            (std::vector<std::string>{"16", "7168", "256", "257", "9", "ActivationType.Silu", "torch.bfloat16",
                                      "torch.float8_e4m3fnuz", "torch.float8_e4m3fnuz", "QuantType.per_1x128", "1",
                                      "0"}));
  EXPECT_EQ(r.backend, "aiter-fused_moe");
  EXPECT_DOUBLE_EQ(r.us, 131.552);
  EXPECT_NEAR(r.tflops, r.key.flops() / (131.552 * 1e6), 1e-12);
  EXPECT_EQ(r.key.size(), 16);
}

TEST(AiterOptest, EnumAndBoolSpellingsAreCanonicalised) {
  std::string text =
      "| token | model_dim | inter_dim | E | topk | actType | dtype | AQDType | WQDType | qType | use_g1u1 | "
      "doweight_stage1 | us |\n"
      "|--:|--:|--:|--:|--:|:--|:--|:--|:--|:--|:--|:--|--:|\n"
      "| 4 | 7168 | 256 | 256 | 8 | <ActivationType.Silu: 0> | bfloat16 | float8_e4m3fn | float8_e4m3fn | "
      "per_1x128 | 1 | False | 55.5 |\n";
  auto tables = find_aiter_markdown_tables(text, "t.md");
  ASSERT_EQ(tables.size(), 1u);
  auto rows = aiter_table_rows(tables[0]);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].key.get("act_type"), "ActivationType.Silu");
  EXPECT_EQ(rows[0].key.get("dtype"), "torch.bfloat16");
  EXPECT_EQ(rows[0].key.get("q_type"), "QuantType.per_1x128");
  EXPECT_EQ(rows[0].key.get("use_g1u1"), "1");
  EXPECT_EQ(rows[0].key.get("doweight_stage1"), "0");
}

TEST(AiterOptest, OtherMarkdownTablesAreSkipped) {
  std::string text =
      "| a | b |\n|---|---|\n| 1 | 2 |\n\n"
      "| m | n | k | ck us |\n|--:|--:|--:|--:|\n| 64 | 512 | 256 | 7.5 |\n";
  auto tables = find_aiter_markdown_tables(text, "t.md");
  ASSERT_EQ(tables.size(), 1u);
  auto rows = aiter_table_rows(tables[0]);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].key.family, Family::A8W8Blockscale);  // no ck_preshuffle column
  EXPECT_EQ(rows[0].key.cells, (std::vector<std::string>{"64", "512", "256"}));
}

TEST(AiterOptest, BrokenTablesNameTheLine) {
  std::string cut = "log line\n| m | n | k | ck us |\n|--:|--:|--:|--:|\n| 64 | 512 | 7.5 |\n";
  try {
    find_aiter_markdown_tables(cut, "cut.log");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 4u);
    EXPECT_NE(std::string(e.what()).find("cut.log:4"), std::string::npos);
  }
  std::string bad = "| m | n | k | ck us |\n|--:|--:|--:|--:|\n| 64 | 5x2 | 256 | 7.5 |\n";
  auto tables = find_aiter_markdown_tables(bad, "bad.log");
  ASSERT_EQ(tables.size(), 1u);
  try {
    aiter_table_rows(tables[0]);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.log:3:8"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cktune
