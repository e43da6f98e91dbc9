#include "cktune/results/results.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/core/io.hpp"

namespace cktune {
namespace {

namespace fs = std::filesystem;

ResultRow gemm_row(const std::string& m, double us) {
  ResultRow r;
  r.gfx = "sm_90";
  r.cu_num = 132;
  r.key = ProblemKey{Family::A8W8Blockscale, {m, "7168", "2112"}};
  r.role = ResultRole::Dispatch;
  r.source = ResultSource::Default;
  r.backend = "gpu";
  r.libtype = "cktune";
  r.kernel_id = 7;
  r.kernel_name = "ck_bs_128x128x128_w4";
  r.split_k = 1;
  r.us = us;
  r.us_min = us * 0.9;
  r.us_p10 = us * 0.95;
  r.us_p90 = us * 1.1;
  r.tflops = 12.345678;
  r.bw = 2345.6789;
  r.err_ratio = 0.00291;
  r.verdict = Verdict::Passed;
  r.reason = "";
  r.device = "NVIDIA H100 80GB HBM3";
  r.protocol = "timer=events;warmup=5;iters=101;min_time_ms=0;rotate=4;stat=median;seed=0";
  r.seed = 42;
  r.timestamp = "2026-11-21T07:05:18Z";
  r.version = "0.1.0";
  return r;
}

fs::path temp_dir() {
  fs::path d = fs::temp_directory_path() / fmt::format("cktune_results_test_{}", ::testing::UnitTest::GetInstance()
                                                                                      ->current_test_info()
                                                                                      ->name());
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

TEST(Results, HeaderFollowsFamilyKeyColumns) {
  auto h = results_header(Family::A8W8Blockscale);
  ASSERT_GE(h.size(), 7u);
  EXPECT_EQ(h[0], "family");
  EXPECT_EQ(h[1], "gfx");
  EXPECT_EQ(h[2], "cu_num");
  EXPECT_EQ(h[3], "M");
  EXPECT_EQ(h[4], "N");
  EXPECT_EQ(h[5], "K");
  EXPECT_EQ(h[6], "role");
  EXPECT_EQ(h.back(), "uuid");
  auto hm = results_header(Family::Moe2Stages);
  EXPECT_EQ(hm[3], "token");
  EXPECT_EQ(hm[14], "doweight_stage1");
}

TEST(Results, RenderFormatsNumbersLikeAiter) {
  ResultRow r = gemm_row("16", 12.3456789);
  r.reason = "bad, really\nbad \"x\"";
  std::string text = render_results(Family::A8W8Blockscale, std::span<const ResultRow>(&r, 1));
  std::istringstream in(text);
  std::string header, line;
  std::getline(in, header);
  std::getline(in, line);
  EXPECT_EQ(line,
            "a8w8_blockscale,sm_90,132,16,7168,2112,dispatch,default,gpu,cktune,7,ck_bs_128x128x128_w4,1,12.3457,"
            "11.1111,11.7284,13.5802,12.35,2345.68,0.0029,passed,bad; really bad 'x',NVIDIA H100 80GB HBM3,"
            "timer=events;warmup=5;iters=101;min_time_ms=0;rotate=4;stat=median;seed=0,42,2026-11-21T07:05:18Z,0.1.0,,");
}

TEST(Results, PipelinePartsSurviveAFileRoundTrip) {
  ResultRow r = gemm_row("16", 12.5);
  r.parts = "sort=1.25;stage1=6.5;stage2=4.75";
  std::string text = render_results(Family::A8W8Blockscale, std::span<const ResultRow>(&r, 1));
  EXPECT_NE(text.find(",sort=1.25;stage1=6.5;stage2=4.75,\n"), std::string::npos) << text;  // then the board (none)
  CsvTable t = parse_csv(text, "mem.csv");
  ResultsFile f = parse_results(t);
  ASSERT_EQ(f.rows.size(), 1u);
  EXPECT_EQ(f.rows[0].parts, r.parts);
}

// The board each row was measured on (its UUID) travels with the row; files written before the column existed read
// with none.
TEST(Results, TheBoardSurvivesAFileRoundTripAndOldFilesHaveNone) {
  ResultRow r = gemm_row("16", 12.5);
  r.uuid = "GPU-082af63b-0000-1111-2222-333344445555";
  std::string text = render_results(Family::A8W8Blockscale, std::span<const ResultRow>(&r, 1));
  EXPECT_NE(text.find(",GPU-082af63b-0000-1111-2222-333344445555\n"), std::string::npos) << text;
  ResultsFile f = parse_results(parse_csv(text, "mem.csv"));
  ASSERT_EQ(f.rows.size(), 1u);
  EXPECT_EQ(f.rows[0].uuid, r.uuid);
  ResultsFile old = read_results(CKTUNE_TEST_DATA "/results/a8w8_blockscale_after.csv");
  ASSERT_FALSE(old.rows.empty());
  for (const auto& row : old.rows) EXPECT_TRUE(row.uuid.empty());
}

TEST(Results, RoundTripThroughFile) {
  fs::path dir = temp_dir();
  std::vector<ResultRow> rows = {gemm_row("1", 10.5), gemm_row("64", 20.25), gemm_row("4096", 300.125)};
  rows[1].role = ResultRole::Baseline;
  rows[1].source = ResultSource::None;
  rows[1].backend = "cublaslt";
  rows[2].us = std::numeric_limits<double>::infinity();
  rows[2].verdict = Verdict::TimedOut;
  std::string path = (dir / "r.csv").string();
  write_results(path, rows);
  ResultsFile f = read_results(path);
  EXPECT_EQ(f.family, Family::A8W8Blockscale);
  ASSERT_EQ(f.rows.size(), 3u);
  EXPECT_EQ(f.rows[0].key, rows[0].key);
  EXPECT_EQ(f.rows[0].gfx, "sm_90");
  EXPECT_EQ(f.rows[0].cu_num, 132);
  EXPECT_EQ(f.rows[0].kernel_name, rows[0].kernel_name);
  EXPECT_EQ(f.rows[0].kernel_id, 7);
  EXPECT_EQ(f.rows[0].split_k, 1);
  EXPECT_DOUBLE_EQ(f.rows[0].us, 10.5);
  EXPECT_DOUBLE_EQ(f.rows[0].err_ratio, 0.0029);
  EXPECT_EQ(f.rows[0].seed, 42u);
  EXPECT_EQ(f.rows[0].protocol, rows[0].protocol);
  EXPECT_EQ(f.rows[1].role, ResultRole::Baseline);
  EXPECT_EQ(f.rows[1].source, ResultSource::None);
  EXPECT_EQ(f.rows[1].backend, "cublaslt");
  EXPECT_EQ(f.rows[0].verdict, Verdict::Passed);
  EXPECT_EQ(f.rows[2].verdict, Verdict::TimedOut);
  EXPECT_TRUE(std::isinf(f.rows[2].us));
  EXPECT_FALSE(f.rows[2].measured());
  EXPECT_TRUE(f.rows[0].measured());
  // Writing what was read gives the same bytes.
  EXPECT_EQ(render_results(f.family, f.rows), read_input(path));
  fs::remove_all(dir);
}

TEST(Results, MoeKeysRoundTrip) {
  ResultRow r = gemm_row("1", 1);
  r.key = ProblemKey{Family::Moe2Stages,
                     {"16", "7168", "256", "257", "8", "ActivationType.Silu", "torch.bfloat16", "torch.float8_e4m3fn",
                      "torch.float8_e4m3fn", "QuantType.per_1x128", "1", "0"}};
  std::string text = render_results(Family::Moe2Stages, std::span<const ResultRow>(&r, 1));
  ResultsFile f = parse_results(parse_csv(text, "moe.csv"));
  ASSERT_EQ(f.rows.size(), 1u);
  EXPECT_EQ(f.family, Family::Moe2Stages);
  EXPECT_EQ(f.rows[0].key, r.key);
  EXPECT_EQ(f.rows[0].key.size(), 16);
}

TEST(Results, LenientReadingOfColumnsAndValues) {
  // Columns in another order, optional ones missing, booleans and "+1" canonicalised, an extra column.
  std::string text =
      "us,family,M,N,K,extra,role\n"
      "5.0,a8w8_blockscale,+032,7168,2112,x,baseline\n";
  ResultsFile f = parse_results(parse_csv(text, "lenient.csv"));
  ASSERT_EQ(f.rows.size(), 1u);
  EXPECT_EQ(f.rows[0].key.cells, (std::vector<std::string>{"32", "7168", "2112"}));
  EXPECT_EQ(f.rows[0].role, ResultRole::Baseline);
  EXPECT_EQ(f.rows[0].cu_num, 0);
  EXPECT_DOUBLE_EQ(f.rows[0].us, 5.0);
}

void expect_input_error(const std::string& text, const std::string& where, const std::string& what) {
  try {
    parse_results(parse_csv(text, "bad.csv"));
    FAIL() << "expected an InputError for:\n" << text;
  } catch (const InputError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find(where), std::string::npos) << msg;
    EXPECT_NE(msg.find(what), std::string::npos) << msg;
  }
}

TEST(Results, MalformedFilesNameFileLineColumn) {
  expect_input_error("family,M,N,K,us\na8w8_blockscale,1,2,3,4.0\nnope,1,2,3,4.0\n", "bad.csv:3:1", "unknown family");
  expect_input_error("family,M,N,K,us\na8w8_blockscale,1,2,3,fast\n", "bad.csv:2:23", "not a number");
  expect_input_error("family,M,N,K,us\na8w8_blockscale,1,2,3,4\na8w8,1,2,3,4\n", "bad.csv:3:1", "family");
  expect_input_error("family,M,N,us\na8w8_blockscale,1,2,4\n", "bad.csv:1", "no key column 'K'");
  expect_input_error("M,N,K,us\n1,2,3,4\n", "bad.csv:1", "no 'family' column");
  expect_input_error("family,M,N,K,us,role\na8w8_blockscale,1,2,3,4,winner\n", "bad.csv:2:25", "unknown role");
  expect_input_error("family,M,N,K,us,splitK\na8w8_blockscale,1,2,3,4,x\n", "bad.csv:2:25", "not an integer");
  expect_input_error("family,M,N,K,us\na8w8_blockscale,1,2,3,\n", "bad.csv:2", "empty 'us'");
  expect_input_error("family,M,N,K,us,verdict\na8w8_blockscale,1,2,3,4,great\n", "bad.csv:2:25", "unknown verdict");
  // Structural CSV errors from the table layer still carry file:line.
  EXPECT_THROW(read_results(CKTUNE_TEST_DATA "/results/does_not_exist.csv"), Error);
}

TEST(Results, AppendReplacesSameSlotAndKeepsOthers) {
  fs::path dir = temp_dir();
  std::string path = (dir / "a.csv").string();
  std::vector<ResultRow> first = {gemm_row("1", 10), gemm_row("2", 11)};
  append_results(path, Family::A8W8Blockscale, first);
  std::vector<ResultRow> second = {gemm_row("2", 9), gemm_row("4", 12)};
  append_results(path, Family::A8W8Blockscale, second);
  ResultsFile f = read_results(path);
  ASSERT_EQ(f.rows.size(), 3u);
  EXPECT_EQ(f.rows[0].key.cells[0], "1");
  EXPECT_EQ(f.rows[1].key.cells[0], "2");
  EXPECT_DOUBLE_EQ(f.rows[1].us, 9);
  EXPECT_EQ(f.rows[2].key.cells[0], "4");

  ResultRow other = gemm_row("8", 1);
  other.key.family = Family::A8W8BlockscaleBpreshuffle;
  EXPECT_THROW(append_results(path, Family::A8W8BlockscaleBpreshuffle, std::span<const ResultRow>(&other, 1)), Error);
  EXPECT_EQ(read_results(path).rows.size(), 3u);  // untouched
  fs::remove_all(dir);
}

TEST(Results, WriterRewritesAfterEachAdd) {
  fs::path dir = temp_dir();
  std::string path = (dir / "w.csv").string();
  {
    ResultsWriter w(path, Family::A8W8Blockscale, false);
    w.add(gemm_row("1", 3));
    EXPECT_EQ(read_results(path).rows.size(), 1u);
    w.add(gemm_row("2", 4));
    EXPECT_EQ(read_results(path).rows.size(), 2u);
  }
  ResultsWriter resumed(path, Family::A8W8Blockscale, true);
  EXPECT_EQ(resumed.rows().size(), 2u);
  ResultsWriter fresh(path, Family::A8W8Blockscale, false);
  fresh.add(gemm_row("9", 1));
  EXPECT_EQ(read_results(path).rows.size(), 1u);
  fs::remove_all(dir);
}

TEST(Results, RejectsMixedFamiliesAndWrongKeyWidth) {
  std::vector<ResultRow> rows = {gemm_row("1", 1), gemm_row("2", 1)};
  rows[1].key.family = Family::A8W8;
  EXPECT_THROW(render_results(Family::A8W8Blockscale, rows), Error);
  rows[1] = gemm_row("2", 1);
  rows[1].key.cells.pop_back();
  EXPECT_THROW(render_results(Family::A8W8Blockscale, rows), Error);
  EXPECT_THROW(write_results("/tmp/never_written.csv", std::span<const ResultRow>()), Error);
}

TEST(Results, BenchLogPathNaming) {
  using namespace std::chrono;
  sys_seconds t = sys_days{year{2026} / 11 / 21} + hours{7} + minutes{5} + seconds{9};
  EXPECT_EQ(bench_log_path("/tmp/logs", Family::A8W8Blockscale, "before", t),
            "/tmp/logs/a8w8_blockscale_bench_before_20261121_070509.log");
  EXPECT_EQ(format_timestamp(t), "2026-11-21T07:05:09Z");
  EXPECT_THROW(bench_log_path("/tmp", Family::A8W8, "../x", t), Error);
  EXPECT_THROW(bench_log_path("/tmp", Family::A8W8, "", t), Error);
}

TEST(Results, TextRendererLinesUpColumns) {
  std::vector<ResultRow> rows = {gemm_row("1", 10.5), gemm_row("4096", 123.25)};
  rows[1].us = -1;
  rows[1].verdict = Verdict::NotSupported;
  rows[1].reason = "K not a multiple of 128";
  std::string text = render_results_text(rows);
  EXPECT_NE(text.find("device:   NVIDIA H100 80GB HBM3"), std::string::npos);
  EXPECT_NE(text.find("gfx:      sm_90  cu_num: 132"), std::string::npos);
  EXPECT_NE(text.find("10.5000"), std::string::npos);
  EXPECT_NE(text.find("K not a multiple of 128"), std::string::npos);
  // The header line and the two data lines: the "us" column ends at the same offset.
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> table;
  while (std::getline(in, line))
    if (!line.empty() && (line[0] == ' ' || line[0] == 'M' || std::isdigit(static_cast<unsigned char>(line[0]))))
      table.push_back(line);
  ASSERT_EQ(table.size(), 3u);
  size_t col = table[0].find(" us ") + 3;
  EXPECT_EQ(table[1].substr(col - 7, 7), "10.5000");
  EXPECT_EQ(table[2][col - 1], '-');
}

}  // namespace
}  // namespace cktune
