#include "cktune/capture/capture.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cktune/core/error.hpp"
#include "cktune/formats/csv.hpp"

namespace cktune::capture {
namespace {

namespace fs = std::filesystem;

const std::string kLog = std::string(CKTUNE_TEST_DATA) + "/logs/server_mixed.log";

class CaptureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("cktune_capture_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  CaptureOptions options() const {
    CaptureOptions o;
    o.inputs = {kLog};
    o.out_dir = dir_.string();
    return o;
  }
  CsvTable table(Family f) const { return read_csv((dir_ / spec(f).untuned_file).string()); }

  fs::path dir_;
};

TEST_F(CaptureTest, JsonReproducesTruthAndFilesHaveExactHeaders) {
  CaptureReport r = run_capture(options());
  nlohmann::json j = report_json(r);
  std::ifstream in(std::string(CKTUNE_TEST_DATA) + "/logs/server_mixed.truth.json");
  nlohmann::json truth = nlohmann::json::parse(in);
  nlohmann::json observed = nlohmann::json::object();
  for (auto& [name, fam] : j["families"].items()) observed[name] = fam["observed"];
  EXPECT_EQ(observed, truth["families"]);

  for (auto& [name, fam] : j["families"].items()) {
    Family f = *family_from_name(name);
    CsvTable t = table(f);
    std::vector<std::string> header(spec(f).untuned.begin(), spec(f).untuned.end());
    EXPECT_EQ(t.header, header) << name;
    EXPECT_EQ(fam["rows"].get<size_t>(), t.rows.size()) << name;
    EXPECT_EQ(fam["unique_keys"].get<size_t>(), truth["families"][name].size()) << name;
    EXPECT_EQ(fam["file"].get<std::string>(), (dir_ / spec(f).untuned_file).string());
  }
  // Observed-only: one row per observed (key, M).
  EXPECT_EQ(table(Family::A8W8Blockscale).rows.size(), 105u);
  EXPECT_EQ(j["families"]["moe_2stages"]["devices"]
                ["7168,256,257,9,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,torch.float8_e4m3fn,"
                 "QuantType.per_1x128,1,0"][0]["cu_num"],
            256);
}

TEST_F(CaptureTest, Pow2SweepKeepsObservedSizes) {
  CaptureOptions o = options();
  o.m_sweep = MSweep::Pow2;
  run_capture(o);
  CsvTable t = table(Family::A8W8Blockscale);
  // 5 keys x (16 powers of two + observed 24, 40, 48, 56, 80, 96, 3000).
  EXPECT_EQ(t.rows.size(), 5u * (16 + 7));
  // Batched keys are swept per (B, N, K).
  EXPECT_EQ(table(Family::BatchedA8W8).rows.size(), 16u + 6);  // + observed 24, 40, 48, 56, 80, 96
}

TEST_F(CaptureTest, VllmSweep) {
  CaptureOptions o = options();
  o.m_sweep = MSweep::Vllm;
  run_capture(o);
  // a8w8_bpreshuffle key: 69 vLLM sizes plus observed 2048, 4096, 3000 (the others are in the sweep).
  EXPECT_EQ(table(Family::A8W8Bpreshuffle).rows.size(), 69u + 3);
}

TEST_F(CaptureTest, TokenSweep) {
  CaptureOptions o = options();
  o.token_sweep = true;
  run_capture(o);
  EXPECT_EQ(table(Family::Moe2Stages).rows.size(), 2u * 16);  // observed tokens are all powers of two
}

TEST_F(CaptureTest, UnreachableMoeTokensAreFlagged) {
  const fs::path log = dir_ / "in.log";
  fs::create_directories(dir_);
  std::ofstream(log) << "[aiter] [fused_moe] using 2stage default for ('gfx950', 256, 3000, 7168, 256, 257, 9, "
                        "<ActivationType.Silu: 0>, 'torch.bfloat16', 'torch.float8_e4m3fn', 'torch.float8_e4m3fn', "
                        "'QuantType.per_1x128', True, False) \n";
  CaptureOptions o = options();
  o.inputs = {log.string()};
  CaptureReport r = run_capture(o);
  ASSERT_EQ(r.families.size(), 1u);
  ASSERT_EQ(r.families[0].warnings.size(), 1u);
  EXPECT_NE(r.families[0].warnings[0].find("token 3000"), std::string::npos);
  EXPECT_NE(r.families[0].warnings[0].find("4096"), std::string::npos);
}

TEST_F(CaptureTest, AppendMergesWithoutDuplicates) {
  run_capture(options());
  const size_t before = table(Family::A8W8Blockscale).rows.size();
  CaptureOptions o = options();
  o.append = true;
  o.model = "deepseek-v3";
  o.plan.tp = 8;
  CaptureReport r = run_capture(o);
  CsvTable t = table(Family::A8W8Blockscale);
  std::set<std::vector<std::string>> unique(t.rows.begin(), t.rows.end());
  EXPECT_EQ(unique.size(), t.rows.size());
  EXPECT_GT(t.rows.size(), before);
  for (const auto& fr : r.families) {
    if (fr.family == Family::A8W8Blockscale) {
      EXPECT_EQ(fr.rows_kept, before);
    }
  }
  // Without --append the file is replaced.
  run_capture(options());
  EXPECT_EQ(table(Family::A8W8Blockscale).rows.size(), before);
}

TEST_F(CaptureTest, PresetWritesSweptRows) {
  CaptureOptions o;
  o.out_dir = dir_.string();
  o.model = "deepseek-v3";
  o.plan.tp = 8;
  o.plan.arch = "gfx950";
  CaptureReport r = run_capture(o);
  EXPECT_EQ(table(Family::A8W8Blockscale).rows.size(), 6u * 16);
  EXPECT_EQ(table(Family::Moe2Stages).rows.size(), 16u);
  ASSERT_TRUE(r.model.has_value());
  EXPECT_EQ(report_json(r)["model"]["gemms"].size(), 6u);
}

// The PTPC study's tables from one command: both per-token families, vLLM's CUDA-graph sizes.
TEST_F(CaptureTest, PresetWritesEveryGemmFamilyAsked) {
  CaptureOptions o;
  o.out_dir = dir_.string();
  o.model = "llama-4-scout";
  o.plan.tp = 8;
  o.preset_gemm_families = {Family::A8W8, Family::A8W8Bpreshuffle};
  o.preset_m_sweep = MSweep::Vllm;
  run_capture(o);
  // qkv, o_proj, shared-expert gate_up and down: 4 keys x 69 sizes (1, 2, 4, 8, 16, 24, ..., 512, 1024, 8192).
  const CsvTable plain = table(Family::A8W8), shuffled = table(Family::A8W8Bpreshuffle);
  EXPECT_EQ(plain.rows.size(), 4u * 69);
  EXPECT_EQ(shuffled.rows.size(), plain.rows.size());
  EXPECT_EQ(table(Family::Moe2Stages).rows.size(), 16u);
  o.preset_gemm_families.clear();
  EXPECT_THROW(run_capture(o), Error);
}

TEST_F(CaptureTest, DryRunWritesNothing) {
  CaptureOptions o = options();
  o.dry_run = true;
  CaptureReport r = run_capture(o);
  EXPECT_FALSE(r.families.empty());
  EXPECT_FALSE(fs::exists(dir_));
}

TEST_F(CaptureTest, NothingToCaptureIsAnError) {
  CaptureOptions o;
  EXPECT_THROW(run_capture(o), Error);
}

TEST_F(CaptureTest, BatchedDumpFamilyIsRejected) {
  CaptureOptions o = options();
  o.dump_family = Family::BatchedA8W8;
  EXPECT_THROW(run_capture(o), Error);
}

TEST_F(CaptureTest, TextSummaryNamesEveryFamily) {
  std::string text = report_text(run_capture(options()));
  for (auto name : {"a8w8_blockscale_bpreshuffle", "batched_a8w8", "moe_2stages"})
    EXPECT_NE(text.find(name), std::string::npos) << name;
}

}  // namespace
}  // namespace cktune::capture
