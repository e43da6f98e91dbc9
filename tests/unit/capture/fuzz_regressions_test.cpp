// Inputs found by fuzzing the log scanner (tests/fuzz/fuzz_capture.cpp, docs/fuzzing.md), kept so that
// the properties the fuzz target checks are also checked in CI.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "cktune/capture/log_scan.hpp"

namespace cktune::capture {
namespace {

// Feed `text` cut after every line break (the finest chunking scan_input could produce).
Observations scan_line_by_line(std::string_view text) {
  LogScanner scanner;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') {
      scanner.scan(text.substr(start, i + 1 - start), true);
      start = i + 1;
    }
  }
  if (start < text.size()) scanner.scan(text.substr(start), false);
  return scanner.take();
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// Found by fuzz_capture: a malformed MoE line before a malformed GEMM line. The scanner makes one pass
// per record kind over each piece, so the warnings come out in another order when the text is scanned
// whole than line by line; the counts and the set of warnings must not depend on the chunking.
TEST(CaptureFuzzRegressions, MalformedLinesCountTheSameWholeOrChunked) {
  const std::string text =
      "[aiter] [fused_moe] using 2stage default for ('ga8w8_tuned_gemm.c, 7168, 256, 257, 9, "
      "<ActivationType.Silu: 0>, 'torch.bfloat16', 'torch.float8_e4m3fn', 'torch.float8_e4m3fn', "
      "'QuantType.per_1x128', True, False)\n"
      "[aiter] shape is M:16, N:2112, K:7168, not found tunm.py:572] [aiter] import\n"
      "[aiter] shape is M:128, N:1280, K:8192, q_dtype_w:torch.int8, not found tuned config in "
      "/tmp/aiter_configs/a8w8_tuned_gemm.csv, will use default config!\n";
  const Observations whole = scan_text(text);
  const Observations chunked = scan_line_by_line(text);
  EXPECT_EQ(whole.ignored.malformed, 2u);
  EXPECT_EQ(chunked.ignored.malformed, 2u);
  EXPECT_EQ(whole.records(), 1u);
  EXPECT_EQ(chunked.records(), 1u);
  EXPECT_EQ(whole.warnings.size(), 2u);
  EXPECT_EQ(sorted(whole.warnings), sorted(chunked.warnings));
}

// Found by fuzz_capture: more malformed lines than the scanner quotes (5). Which ones are quoted follows
// the scan order, but the number of malformed lines and everything counted must not.
TEST(CaptureFuzzRegressions, ManyMalformedLinesCountTheSameWholeOrChunked) {
  std::string text;
  for (int i = 0; i < 4; ++i) text += "[aiter] shape is M:" + std::to_string(i) + "x, N:1\n";
  for (int i = 0; i < 3; ++i) text += "[fused_moe] using 2stage default for (" + std::to_string(i) + "\n";
  text += "[aiter] shape is M:8192, N:4096, K:7168, not found tuned config in "
          "/tmp/aiter_configs/a8w8_blockscale_bpreshuffle_tuned_gemm.csv, will use default config!\n";
  const Observations whole = scan_text(text);
  const Observations chunked = scan_line_by_line(text);
  EXPECT_EQ(whole.ignored.malformed, 7u);
  EXPECT_EQ(chunked.ignored.malformed, 7u);
  EXPECT_EQ(whole.records(), 1u);
  EXPECT_EQ(chunked.records(), 1u);
  EXPECT_EQ(whole.of(Family::A8W8BlockscaleBpreshuffle).lines(), 1u);
  EXPECT_EQ(chunked.of(Family::A8W8BlockscaleBpreshuffle).lines(), 1u);
}

}  // namespace
}  // namespace cktune::capture
