#include "cktune/capture/untuned.hpp"

#include <gtest/gtest.h>

#include "cktune/core/error.hpp"
#include "cktune/formats/lookup.hpp"

namespace cktune::capture {
namespace {

std::vector<std::string> header_of(Family f) {
  std::vector<std::string> h;
  for (auto c : spec(f).untuned) h.emplace_back(c);
  return h;
}

TEST(Untuned, Pow2SweepIsSixteenPowersOfTwo) {
  auto m = m_sweep_sizes(MSweep::Pow2);
  ASSERT_EQ(m.size(), 16u);
  for (size_t i = 0; i < m.size(); ++i) EXPECT_EQ(m[i], std::int64_t{1} << i);
  EXPECT_EQ(m.back(), 32768);
}

TEST(Untuned, VllmSweepIsCudaGraphSizesPlusPrefill) {
  auto m = m_sweep_sizes(MSweep::Vllm);
  std::vector<std::int64_t> want = {1, 2, 4};
  for (std::int64_t v = 8; v <= 512; v += 8) want.push_back(v);
  want.push_back(1024);
  want.push_back(8192);
  EXPECT_EQ(m, want);
  EXPECT_EQ(m.size(), 69u);
  EXPECT_TRUE(m_sweep_sizes(MSweep::Observed).empty());
}

TEST(Untuned, TokenSweepIsWhatTheRuntimeLooksUp) {
  auto t = token_sweep_sizes();
  EXPECT_EQ(t.front(), 1);
  EXPECT_EQ(t.back(), 32768);
  for (auto v : t) EXPECT_TRUE(moe_token_reachable(v)) << v;
}

TEST(Untuned, SweepNames) {
  EXPECT_EQ(m_sweep_from_name("pow2"), MSweep::Pow2);
  EXPECT_EQ(m_sweep_from_name("vllm"), MSweep::Vllm);
  EXPECT_FALSE(m_sweep_from_name("server.log").has_value());
  EXPECT_EQ(m_sweep_name(MSweep::Vllm), "vllm");
}

TEST(Untuned, GemmTableHeaderAndNumericOrder) {
  UntunedRows rows;
  rows.keys["7168,2048"] = {64, 8, 1};
  rows.keys["1280,8192"] = {16};
  rows.keys["896,5120"] = {2};
  rows.keys["1280,512"] = {4};
  CsvTable t = build_untuned_table(Family::A8W8Blockscale, rows);
  EXPECT_EQ(t.header, header_of(Family::A8W8Blockscale));
  std::vector<std::vector<std::string>> want = {
      {"2", "896", "5120"}, {"4", "1280", "512"}, {"16", "1280", "8192"},
      {"1", "7168", "2048"}, {"8", "7168", "2048"}, {"64", "7168", "2048"},
  };
  EXPECT_EQ(t.rows, want);
  EXPECT_EQ(render_csv(t).substr(0, 6), "M,N,K\n");
}

TEST(Untuned, BatchedPutsMAfterB) {
  UntunedRows rows;
  rows.keys["16,1280,8192"] = {96, 1};
  CsvTable t = build_untuned_table(Family::BatchedA8W8, rows);
  EXPECT_EQ(t.header, header_of(Family::BatchedA8W8));
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0], (std::vector<std::string>{"16", "1", "1280", "8192"}));
  EXPECT_EQ(t.rows[1], (std::vector<std::string>{"16", "96", "1280", "8192"}));
}

TEST(Untuned, MoeTableTokenFirstSortedByKeyThenToken) {
  const std::string a = "7168,256,257,9,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,torch.float8_e4m3fn,"
                        "QuantType.per_1x128,1,0";
  const std::string b = "4096,512,512,10,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fnuz,"
                        "torch.float8_e4m3fnuz,QuantType.per_1x128,1,0";
  UntunedRows rows;
  rows.keys[a] = {2, 1};
  rows.keys[b] = {4};
  CsvTable t = build_untuned_table(Family::Moe2Stages, rows);
  EXPECT_EQ(t.header, header_of(Family::Moe2Stages));
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.rows[0][0], "4");  // model_dim 4096 < 7168
  EXPECT_EQ(t.rows[0][1], "4096");
  EXPECT_EQ(t.rows[1][0], "1");
  EXPECT_EQ(t.rows[2][0], "2");
  EXPECT_EQ(t.rows[2].size(), 12u);
  EXPECT_EQ(t.rows[2][11], "0");
}

TEST(Untuned, RowsFromTableRoundTrip) {
  UntunedRows rows;
  rows.keys["1280,8192,torch.int8"] = {1, 32};
  CsvTable t = parse_csv(render_csv(build_untuned_table(Family::A8W8, rows)), "a8w8_untuned_gemm.csv");
  UntunedRows back = rows_from_table(Family::A8W8, t);
  EXPECT_EQ(back.keys, rows.keys);
}

TEST(Untuned, RowsFromTableReadsAitersSpacedFiles) {
  CsvTable t = parse_csv("M,N,K\n1, 256, 7168\n2, 256, 7168\n", "ds_v3.csv");
  UntunedRows back = rows_from_table(Family::A8W8Blockscale, t);
  ASSERT_EQ(back.keys.size(), 1u);
  EXPECT_EQ(back.keys.begin()->first, "256,7168");
  EXPECT_EQ(back.row_count(), 2u);
}

TEST(Untuned, RowsFromTableRejectsOtherHeader) {
  CsvTable t = parse_csv("M,N,K,q_dtype_w\n1,2,3,torch.int8\n", "x.csv");
  EXPECT_THROW(rows_from_table(Family::A8W8Blockscale, t), InputError);
  CsvTable bad = parse_csv("M,N,K\nx,2,3\n", "y.csv");
  try {
    rows_from_table(Family::A8W8Blockscale, bad);
    FAIL() << "no error for a non-numeric M";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 2u);
  }
}

}  // namespace
}  // namespace cktune::capture
