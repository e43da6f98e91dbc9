#include "cktune/capture/log_scan.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cktune/core/error.hpp"

namespace cktune::capture {
namespace {

namespace fs = std::filesystem;

const std::string kBlockscale =
    "[aiter] shape is M:16, N:24576, K:1536, not found tuned config in "
    "/tmp/aiter_configs/a8w8_blockscale_tuned_gemm.csv, will use default config!";
const std::string kMoeNew =
    "[aiter] [fused_moe] using 2stage default for ('gfx950', 256, 16, 7168, 256, 257, 9, <ActivationType.Silu: 0>, "
    "'torch.bfloat16', 'torch.float8_e4m3fn', 'torch.float8_e4m3fn', 'QuantType.per_1x128', True, False) ";
const std::string kMoeKey =
    "7168,256,257,9,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,torch.float8_e4m3fn,QuantType.per_1x128,1,0";
const std::string kDump =
    "[GEMM_shape_dump] aiter FP8 block GEMM path layer.prefix='model.layers.3.mlp.gate_up_proj' block_size=[128, 128] "
    "| x.shape=(4, 7168) weight.shape=(4096, 7168) | M=4 N=4096 K=7168 (aiter gemm_a8w8_blockscale / bpreshuffle "
    "tune CSV) | csv_row: 4,4096,7168,torch.float8_e4m3fnuz";

// family -> key -> size -> count, the shape of server_mixed.truth.json's "families".
nlohmann::json as_json(const Observations& obs) {
  nlohmann::json j = nlohmann::json::object();
  for (Family f : kAllFamilies)
    for (const auto& [key, ko] : obs.of(f).keys)
      for (const auto& [size, count] : ko.sizes.sorted()) j[std::string(family_name(f))][key][std::to_string(size)] = count;
  return j;
}

std::uint64_t count_of(const Observations& obs, Family f, const std::string& key, std::int64_t size) {
  auto it = obs.of(f).keys.find(key);
  if (it == obs.of(f).keys.end()) return 0;
  return it->second.sizes.count(size);
}

std::string temp_path(const std::string& name) {
  return (fs::temp_directory_path() / ("cktune_capture_" + std::to_string(::getpid()) + "_" + name)).string();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(LogScan, BlockscaleNotFoundLine) {
  auto obs = scan_text(kBlockscale + "\n");
  EXPECT_EQ(count_of(obs, Family::A8W8Blockscale, "24576,1536", 16), 1u);
  EXPECT_EQ(obs.records(), 1u);
}

TEST(LogScan, BpreshuffleFileIsItsOwnFamily) {
  auto obs = scan_text(
      "[aiter] shape is M:80, N:4096, K:7168, not found tuned config in "
      "/tmp/aiter_configs/a8w8_blockscale_bpreshuffle_tuned_gemm.csv, will use default config!\n");
  EXPECT_EQ(count_of(obs, Family::A8W8BlockscaleBpreshuffle, "4096,7168", 80), 1u);
  EXPECT_TRUE(obs.of(Family::A8W8Blockscale).keys.empty());
}

TEST(LogScan, EveryGemmFamilyFromItsFileName) {
  struct Case {
    std::string line;
    Family family;
    std::string key;
  };
  const Case cases[] = {
      {"shape is M:64, N:1280, K:8192, q_dtype_w:torch.int8, not found tuned config in /x/a8w8_tuned_gemm.csv, will "
       "use default config!",
       Family::A8W8, "1280,8192,torch.int8"},
      {"shape is M:64, N:1280, K:8192, q_dtype_w:torch.float8_e4m3fnuz, not found tuned config in "
       "/x/a8w8_bpreshuffle_tuned_gemm.csv, will use default config!",
       Family::A8W8Bpreshuffle, "1280,8192,torch.float8_e4m3fnuz"},
      {"shape is M:64, N:7168, K:2048, not found tuned config in /x/a4w4_blockscale_tuned_gemm.csv, will use "
       "default config!",
       Family::A4W4Blockscale, "7168,2048"},
      // A merged model_configs name still tells the family.
      {"shape is M:64, N:2112, K:7168, not found tuned config in /x/a8w8_blockscale_tuned_gemm_ds_v3.csv, will "
       "use default config!",
       Family::A8W8Blockscale, "2112,7168"},
  };
  for (const auto& c : cases) {
    auto obs = scan_text(c.line + "\n");
    EXPECT_EQ(count_of(obs, c.family, c.key, 64), 1u) << c.line;
    EXPECT_EQ(obs.records(), 1u) << c.line;
  }
}

TEST(LogScan, BatchedA8W8) {
  auto obs = scan_text("[aiter] shape is B:16, M:96, N:1280, K:8192, not found tuned config in CKGEMM, will use "
                       "default config!\n");
  EXPECT_EQ(count_of(obs, Family::BatchedA8W8, "16,1280,8192", 96), 1u);
}

TEST(LogScan, BatchedBf16) {
  auto obs = scan_text("[aiter] shape is B:16, M:96, N:1280, K:8192 dtype is bf16, not found tuned config in "
                       "CKGEMM, will use default config!\n");
  EXPECT_EQ(count_of(obs, Family::BatchedBf16, "16,1280,8192", 96), 1u);
  EXPECT_TRUE(obs.of(Family::BatchedA8W8).keys.empty());
}

TEST(LogScan, FoundLineIsIgnored) {
  auto obs = scan_text(
      "[aiter] shape is M:64, N:2112, K:7168, found padded_M: 64, N:2112, K:7168 is tuned on cu_num = 256 in "
      "/tmp/aiter_configs/a8w8_blockscale_tuned_gemm.csv , kernel name is a8w8_blockscale_1x128x128_x!\n");
  EXPECT_EQ(obs.records(), 0u);
  EXPECT_EQ(obs.ignored.found, 1u);
}

TEST(LogScan, MoeNewFormWithGfxAndEnumRepr) {
  auto obs = scan_text(kMoeNew + "\n");
  EXPECT_EQ(count_of(obs, Family::Moe2Stages, kMoeKey, 16), 1u);
  const auto& devices = obs.of(Family::Moe2Stages).keys.at(kMoeKey).devices;
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices.begin()->first.first, "gfx950");
  EXPECT_EQ(devices.begin()->first.second, 256);
}

TEST(LogScan, MoeOldFormWithoutGfxAndQuotedActivation) {
  auto obs = scan_text(
      "[fused_moe] using 1stage default for (80, 32, 4096, 512, 512, 10, 'ActivationType.Silu', 'torch.bfloat16', "
      "'torch.float8_e4m3fnuz', 'torch.float8_e4m3fnuz', 'QuantType.per_1x128', True, False)\n");
  const std::string key =
      "4096,512,512,10,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fnuz,torch.float8_e4m3fnuz,QuantType."
      "per_1x128,1,0";
  EXPECT_EQ(count_of(obs, Family::Moe2Stages, key, 32), 1u);
  const auto& devices = obs.of(Family::Moe2Stages).keys.at(key).devices;
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices.begin()->first.first, "");  // the old form has no gfx
  EXPECT_EQ(devices.begin()->first.second, 80);
}

TEST(LogScan, MoeEveryDefaultMode) {
  for (std::string mode : {"1stage", "2stage", "1stage xbf16"}) {
    std::string line = kMoeNew;
    line.replace(line.find("2stage"), 6, mode);
    auto obs = scan_text(line + "\n");
    EXPECT_EQ(count_of(obs, Family::Moe2Stages, kMoeKey, 16), 1u) << mode;
  }
}

TEST(LogScan, TunedMoeLineIsIgnored) {
  auto obs = scan_text(
      "[aiter] [fused_moe] using 2stage (kernelName1='moe_ck2stages_gemm1_256x32x128x128_1x4_x', "
      "kernelName2='moe_ck2stages_gemm2_256x32x128x128_1x4_y') for ('gfx950', 256, 128, 7168, 256, 257, 9, "
      "<ActivationType.Silu: 0>, 'torch.bfloat16', 'torch.float8_e4m3fn', 'torch.float8_e4m3fn', "
      "'QuantType.per_1x128', True, False) \n");
  EXPECT_EQ(obs.records(), 0u);
  EXPECT_EQ(obs.ignored.tuned_moe, 1u);
}

TEST(LogScan, SglangDumpCountsAsBlockscaleByDefault) {
  auto obs = scan_text(kDump + "\n");
  EXPECT_EQ(count_of(obs, Family::A8W8Blockscale, "4096,7168", 4), 1u);
}

TEST(LogScan, SglangDumpFamilyOption) {
  auto obs = scan_text(kDump + "\n", ScanOptions{Family::A8W8Bpreshuffle});
  EXPECT_EQ(count_of(obs, Family::A8W8Bpreshuffle, "4096,7168,torch.float8_e4m3fnuz", 4), 1u);
  EXPECT_TRUE(obs.of(Family::A8W8Blockscale).keys.empty());
}

TEST(LogScan, CsvRowWithoutDumpTagIsNotOurs) {
  auto obs = scan_text("tuner wrote csv_row: 4,4096,7168,torch.float8_e4m3fnuz\n");
  EXPECT_EQ(obs.records(), 0u);
}

TEST(LogScan, ServerPrefixes) {
  auto obs = scan_text("[2026-03-21 14:30:22 TP0] " + kBlockscale + "\n" +
                       "(VllmWorker rank=1 pid=4078) INFO 03-21 14:30:22 [gemm.py:391] " + kBlockscale + "\n" +
                       "(VllmWorker rank=1 pid=4078) INFO 03-21 14:30:22 [gemm.py:391] " + kMoeNew + "\n");
  EXPECT_EQ(count_of(obs, Family::A8W8Blockscale, "24576,1536", 16), 2u);
  EXPECT_EQ(count_of(obs, Family::Moe2Stages, kMoeKey, 16), 1u);
}

TEST(LogScan, AnsiColourCodes) {
  auto obs = scan_text("[2026-03-21 14:05:51 TP4] \x1b[32m" + kBlockscale + "\x1b[0m\n\x1b[32m" + kMoeNew +
                       "\x1b[0m\n");
  EXPECT_EQ(count_of(obs, Family::A8W8Blockscale, "24576,1536", 16), 1u);
  EXPECT_EQ(count_of(obs, Family::Moe2Stages, kMoeKey, 16), 1u);
}

TEST(LogScan, CrlfLineEndings) {
  auto obs = scan_text(kBlockscale + "\r\n" + kDump + "\r\n" + kMoeNew + "\r\n");
  EXPECT_EQ(count_of(obs, Family::A8W8Blockscale, "24576,1536", 16), 1u);
  // The dtype cell must not keep the '\r': with a q_dtype_w family it would become part of the key.
  auto q = scan_text(kDump + "\r\n", ScanOptions{Family::A8W8});
  EXPECT_EQ(count_of(q, Family::A8W8, "4096,7168,torch.float8_e4m3fnuz", 4), 1u);
  EXPECT_EQ(count_of(obs, Family::A8W8Blockscale, "4096,7168", 4), 1u);
  EXPECT_EQ(count_of(obs, Family::Moe2Stages, kMoeKey, 16), 1u);
}

TEST(LogScan, ProgressBarGluedBeforeRecord) {
  const std::string bar = "\r Capturing batches (bs=4 avail_mem=20.1 GB):  35%|\xe2\x96\x88\xe2\x96\x88      | 18/52 "
                          "[00:02<00:04,  7.9it/s]";
  auto obs = scan_text(bar + "[2026-03-21 14:44:10 TP0] " + kDump + "\n" + bar + kBlockscale + "\n");
  EXPECT_EQ(count_of(obs, Family::A8W8Blockscale, "4096,7168", 4), 1u);
  EXPECT_EQ(count_of(obs, Family::A8W8Blockscale, "24576,1536", 16), 1u);
}

TEST(LogScan, TwoLineLogMoreRecord) {
  auto obs = scan_text(
      "[aiter INFO] 2026-03-21 14:30:22.123 - MainProcess:4242 - /opt/aiter/aiter/ops/gemm_op_a8w8.py:512 - "
      "get_CKGEMM_config\n"
      "shape is M:8, N:24576, K:1536, not found tuned config in /tmp/aiter_configs/a8w8_blockscale_tuned_gemm.csv, "
      "will use default config!\n");
  EXPECT_EQ(count_of(obs, Family::A8W8Blockscale, "24576,1536", 8), 1u);
}

TEST(LogScan, TruncatedLastLineDoesNotCount) {
  for (const std::string& cut : {std::string("[aiter] shape is M:77, N:9999, K:77"), kMoeNew.substr(0, 120),
                                 kDump.substr(0, kDump.size() - 2)}) {
    auto obs = scan_text(kBlockscale + "\n" + cut);
    EXPECT_EQ(obs.records(), 1u) << cut;
    EXPECT_EQ(obs.ignored.truncated, 1u) << cut;
    EXPECT_EQ(obs.ignored.malformed, 0u) << cut;
  }
}

TEST(LogScan, CompleteLastLineWithoutNewlineCounts) {
  auto obs = scan_text(kBlockscale);
  EXPECT_EQ(count_of(obs, Family::A8W8Blockscale, "24576,1536", 16), 1u);
}

TEST(LogScan, UnknownTunedFileIsWarnedOnce) {
  const std::string line =
      "shape is M:1, N:2, K:3, not found tuned config in /x/mystery_tuned.csv, will use default config!\n";
  auto obs = scan_text(line + line);
  EXPECT_EQ(obs.records(), 0u);
  EXPECT_EQ(obs.ignored.unknown_file, 2u);
  ASSERT_EQ(obs.warnings.size(), 1u);
  EXPECT_NE(obs.warnings[0].find("/x/mystery_tuned.csv"), std::string::npos);
  EXPECT_EQ(obs.unknown_files, std::vector<std::string>{"/x/mystery_tuned.csv"});
}

TEST(LogScan, FamilyKeyFieldMissingIsMalformed) {
  // a8w8 keys on q_dtype_w; a line without it cannot make a row.
  auto obs = scan_text("shape is M:1, N:2, K:3, not found tuned config in /x/a8w8_tuned_gemm.csv, will use default "
                       "config!\n");
  EXPECT_EQ(obs.records(), 0u);
  EXPECT_EQ(obs.ignored.malformed, 1u);
  EXPECT_FALSE(obs.warnings.empty());
}

TEST(LogScan, OtherShapeMessagesAreNotOurs) {
  auto obs = scan_text("[aiter] input shape is (4, 7168)\n");
  EXPECT_EQ(obs.records(), 0u);
  EXPECT_EQ(obs.ignored.malformed, 0u);
}

TEST(LogScan, ReproducesServerMixedTruth) {
  LogScanner scanner;
  scan_input(std::string(CKTUNE_TEST_DATA) + "/logs/server_mixed.log", scanner);
  std::ifstream in(std::string(CKTUNE_TEST_DATA) + "/logs/server_mixed.truth.json");
  nlohmann::json truth = nlohmann::json::parse(in);
  EXPECT_EQ(as_json(scanner.observations()), truth["families"]);
  EXPECT_EQ(scanner.observations().ignored.truncated, 1u);  // "[aiter] shape is M:77, N:9999, K:77"
}

TEST(LogScan, GzipInputMatchesPlain) {
  const std::string log = std::string(CKTUNE_TEST_DATA) + "/logs/server_mixed.log";
  const std::string gz = temp_path("server_mixed.log.gz");
  {
    gzFile out = gzopen(gz.c_str(), "wb");
    ASSERT_NE(out, nullptr);
    std::string text = read_file(log);
    ASSERT_EQ(gzwrite(out, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
    gzclose(out);
  }
  LogScanner plain, zipped;
  const auto plain_bytes = scan_input(log, plain);
  const auto zipped_bytes = scan_input(gz, zipped);
  fs::remove(gz);
  EXPECT_EQ(plain_bytes, zipped_bytes);
  EXPECT_EQ(as_json(plain.observations()), as_json(zipped.observations()));
  EXPECT_FALSE(as_json(zipped.observations()).empty());
}

TEST(LogScan, ChunkBoundariesDoNotSplitRecords) {
  // More than the 8 MiB read chunk, with records straddling every boundary.
  std::string one = read_file(std::string(CKTUNE_TEST_DATA) + "/logs/server_mixed.log");
  one = one.substr(0, one.rfind('\n') + 1);  // drop the truncated last line
  std::string big;
  while (big.size() < (size_t{20} << 20)) big += one;
  const std::string path = temp_path("big.log");
  {
    std::ofstream out(path, std::ios::binary);
    out << big;
  }
  LogScanner streamed;
  scan_input(path, streamed);
  fs::remove(path);
  EXPECT_EQ(as_json(streamed.observations()), as_json(scan_text(big)));
  EXPECT_EQ(streamed.observations().ignored.truncated, 0u);
}

TEST(LogScan, SizeCountsGrowAndSort) {
  SizeCounts c;
  for (std::int64_t m = 1; m <= 5000; ++m) c.add(m, static_cast<std::uint64_t>(m % 3 + 1));
  c.add(7);
  EXPECT_EQ(c.distinct(), 5000u);
  EXPECT_EQ(c.count(7), 7 % 3 + 1 + 1u);
  EXPECT_EQ(c.count(5001), 0u);
  auto sorted = c.sorted();
  ASSERT_EQ(sorted.size(), 5000u);
  EXPECT_EQ(sorted.front().first, 1);
  EXPECT_EQ(sorted.back().first, 5000);
  EXPECT_TRUE(std::is_sorted(sorted.begin(), sorted.end()));
}

TEST(LogScan, MissingFileIsAnError) {
  LogScanner scanner;
  EXPECT_THROW(scan_input("/nonexistent/server.log", scanner), Error);
}

TEST(LogScan, TwoRecordsGluedOnOneLineBothCount) {
  // Ranks writing to one stream can glue two messages on one physical line; the second was dropped.
  const std::string other = "[aiter] shape is M:32, N:4096, K:7168, not found tuned config in "
                            "/x/a8w8_blockscale_tuned_gemm.csv, will use default config!";
  Observations obs = scan_text(kBlockscale + other + "\n" + kMoeNew + kMoeNew + "\n" +
                               "[aiter] [fused_moe] using 2stage (kernelName1=a) " + kMoeNew + "\n");
  EXPECT_EQ(count_of(obs, Family::A8W8Blockscale, "24576,1536", 16), 1u);
  EXPECT_EQ(count_of(obs, Family::A8W8Blockscale, "4096,7168", 32), 1u);
  EXPECT_EQ(count_of(obs, Family::Moe2Stages, kMoeKey, 16), 3u);
  EXPECT_EQ(obs.ignored.tuned_moe, 1u);
  // A tuned hit glued before an untuned record.
  Observations hit = scan_text("[aiter] shape is M:16, N:24576, K:1536, found padded_M in x, is tuned " + other + "\n");
  EXPECT_EQ(hit.ignored.found, 1u);
  EXPECT_EQ(count_of(hit, Family::A8W8Blockscale, "4096,7168", 32), 1u);
}

TEST(LogScan, NonPositiveCuNumIsIgnoredWithAWarning) {
  std::string bad = kMoeNew;
  bad.replace(bad.find("256, 16,"), 3, "-256");
  Observations obs = scan_text(bad + "\n" + bad + "\n" + kMoeNew + "\n");
  EXPECT_EQ(obs.ignored.bad_cu_num, 2u);
  EXPECT_EQ(count_of(obs, Family::Moe2Stages, kMoeKey, 16), 1u);
  ASSERT_EQ(obs.warnings.size(), 1u);
  EXPECT_NE(obs.warnings[0].find("cu_num <= 0"), std::string::npos) << obs.warnings[0];
}

TEST(LogScan, TruncatedGzipIsAnErrorNamingTheOffset) {
  std::string text;
  for (int i = 0; i < 3000; ++i) text += kBlockscale + "\n";
  const std::string gz = temp_path("cut.log.gz");
  {
    gzFile out = gzopen(gz.c_str(), "wb");
    ASSERT_NE(out, nullptr);
    ASSERT_EQ(gzwrite(out, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
    gzclose(out);
  }
  std::string bytes = read_file(gz);
  {
    std::ofstream out(gz, std::ios::binary | std::ios::trunc);
    out << bytes.substr(0, bytes.size() - 4);  // the length field of the trailer is missing
  }
  LogScanner scanner;
  try {
    scan_input(gz, scanner);
    ADD_FAILURE() << "a .gz without its trailer was read as complete";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(gz), std::string::npos) << what;
    EXPECT_NE(what.find(fmt::format("cut short at byte {}", bytes.size() - 4)), std::string::npos) << what;
  }
  fs::remove(gz);
}

TEST(LogScan, LinesOverTheLimitAreSkippedAndCounted) {
  const std::string path = temp_path("long.log");
  {
    std::ofstream out(path, std::ios::binary);
    out << kBlockscale << "\n" << std::string(5000, 'x') << kBlockscale << "\n" << kBlockscale << "\n"
        << std::string(3000, 'y') << "\n" << std::string(2000, 'z') << kBlockscale;  // unterminated, too long
  }
  LogScanner scanner;
  ScanInputOptions o;
  o.max_line_bytes = 1000;
  scan_input(path, scanner, o);
  fs::remove(path);
  const Observations& obs = scanner.observations();
  EXPECT_EQ(count_of(obs, Family::A8W8Blockscale, "24576,1536", 16), 2u);
  EXPECT_EQ(obs.ignored.long_lines, 3u);
  ASSERT_FALSE(obs.warnings.empty());
  EXPECT_NE(obs.warnings.back().find("3 line(s) longer than 1000 bytes"), std::string::npos) << obs.warnings.back();
}

TEST(LogScan, AGzipOfOneHugeLineTakesBoundedMemory) {
  // 256 MiB of one line, as concatenated gzip members of 1 MiB each (a small file, made in no time). The old
  // reader doubled its buffer until the whole line fitted.
  const std::string gz = temp_path("huge_line.gz");
  {
    std::string block(size_t{1} << 20, 'a');
    gzFile one = gzopen(gz.c_str(), "wb9");
    ASSERT_NE(one, nullptr);
    ASSERT_EQ(gzwrite(one, block.data(), static_cast<unsigned>(block.size())), static_cast<int>(block.size()));
    gzclose(one);
    std::string member = read_file(gz);
    std::ofstream out(gz, std::ios::binary | std::ios::trunc);
    for (int i = 0; i < 256; ++i) out << member;
  }
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    struct rusage before {};
    ::getrusage(RUSAGE_SELF, &before);
    LogScanner scanner;
    std::uint64_t bytes = 0;
    try {
      bytes = scan_input(gz, scanner);
    } catch (...) {
      ::_exit(101);
    }
    struct rusage after {};
    ::getrusage(RUSAGE_SELF, &after);
    if (bytes != (std::uint64_t{256} << 20)) ::_exit(102);
    if (scanner.observations().ignored.long_lines != 1) ::_exit(103);
    const long grew_mib = (after.ru_maxrss - before.ru_maxrss) / 1024;  // ru_maxrss is in KiB
    ::_exit(static_cast<int>(std::min<long>(grew_mib, 99)));
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  fs::remove(gz);
  ASSERT_TRUE(WIFEXITED(status));
  const int code = WEXITSTATUS(status);
  ASSERT_LT(code, 100) << "child failed with " << code;
  EXPECT_LT(code, 64) << "peak memory grew by " << code << " MiB for a 256 MiB line";
}

}  // namespace
}  // namespace cktune::capture
