#include "cktune/verify/check.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "cktune/numerics/bf16.hpp"

namespace cktune {
namespace {

TEST(Verdict, TableRoundTrips) {
  for (const auto& n : kVerdictNames) EXPECT_EQ(verdict_from_string(to_string(n.value)), n.value);
  EXPECT_EQ(to_string(Verdict::NotSupported), "not_supported");
  EXPECT_EQ(to_string(Verdict::TimedOut), "timed_out");
  EXPECT_FALSE(verdict_from_string("ok").has_value());
}

TEST(Check, IdenticalPasses) {
  std::vector<float> ref = {1, 2, 3, 4, 5, 6};
  const auto r = check_output(ref.data(), ref.data(), 2, 3);
  EXPECT_EQ(r.verdict, Verdict::Passed);
  EXPECT_EQ(r.err_ratio, 0.0);
  EXPECT_EQ(r.checked, 6);
  EXPECT_TRUE(r.reason.empty());
}

TEST(Check, AiterErrRatioRule) {
  // bad when |ref - out| > 0.01 + 0.01 * |out|
  std::vector<float> ref(8, 1.0f), out(8, 1.0f);
  out[1] = 1.0199f;  // 0.0199 <= 0.010199 + 0.01 -> fine
  out[2] = 1.05f;    // bad
  out[3] = 0.95f;    // bad
  out[4] = 0.9f;     // 0.1 > 0.01 + 0.009 -> bad (relative to out, not ref)
  const auto r = check_output(ref.data(), out.data(), 1, 8, Tolerance{.max_row_err_ratio = 1.0});
  EXPECT_DOUBLE_EQ(r.err_ratio, 3.0 / 8);
  EXPECT_DOUBLE_EQ(aiter_err_ratio(ref.data(), out.data(), 8), 3.0 / 8);
  EXPECT_EQ(r.verdict, Verdict::Incorrect);
  EXPECT_NE(r.reason.find("errRatio 0.3750"), std::string::npos) << r.reason;
  EXPECT_FALSE(r.catastrophic);
  EXPECT_NEAR(r.max_abs_err, 0.1, 1e-6);
}

TEST(Check, CatastrophicRules) {
  std::vector<float> ref(100, 0.5f), out(100, 0.5f);
  out[7] = std::numeric_limits<float>::quiet_NaN();
  auto r = check_output(ref.data(), out.data(), 10, 10);
  EXPECT_TRUE(r.catastrophic);
  EXPECT_EQ(r.err_ratio, 1.0);
  EXPECT_EQ(r.non_finite, 1);
  EXPECT_EQ(r.verdict, Verdict::Incorrect);
  out[7] = 0.5f;
  ref[3] = 1.6f;  // |diff| 1.1 > 0.5 * max(max|out| = 0.5, 1)
  r = check_output(ref.data(), out.data(), 10, 10);
  EXPECT_TRUE(r.catastrophic);
  EXPECT_EQ(r.err_ratio, 1.0);
  EXPECT_EQ(aiter_err_ratio(ref.data(), out.data(), 100), 1.0);
  ref[3] = 0.9f;  // 0.4 <= 0.5: not catastrophic; error ratio 1/100 only
  r = check_output(ref.data(), out.data(), 10, 10, Tolerance{.max_row_err_ratio = 0.5});
  EXPECT_FALSE(r.catastrophic);
  EXPECT_DOUBLE_EQ(r.err_ratio, 0.01);
  EXPECT_EQ(r.verdict, Verdict::Passed);
}

TEST(Check, UnwrittenCellsAreReported) {
  std::vector<float> ref(64, 2.0f), out(64);
  poison_nan(out.data(), 64);
  for (int i = 0; i < 60; ++i) out[static_cast<size_t>(i)] = 2.0f;
  const auto r = check_output(ref.data(), out.data(), 8, 8);
  EXPECT_EQ(r.unwritten, 4);
  EXPECT_EQ(r.non_finite, 0);  // poison is not counted as computed NaN
  EXPECT_EQ(r.verdict, Verdict::Incorrect);
  EXPECT_EQ(r.reason, "4 outputs not written");
  EXPECT_TRUE(is_poison(out[63]));
  EXPECT_FALSE(is_poison(std::numeric_limits<float>::quiet_NaN()));
}

TEST(Check, WreckedRowFailsEvenWhenGlobalRatioPasses) {
  const int rows = 100, cols = 64;
  std::vector<float> ref(rows * cols), out(rows * cols);
  for (size_t i = 0; i < ref.size(); ++i) ref[i] = out[i] = 1.0f + static_cast<float>(i % 7);
  for (int c = 0; c < cols; ++c) out[static_cast<size_t>(42 * cols + c)] *= 1.1f;
  const auto r = check_output(ref.data(), out.data(), rows, cols);
  EXPECT_NEAR(r.err_ratio, 0.01, 1e-12);  // AITER's rule alone would pass this (<= 0.05)
  EXPECT_EQ(r.worst_row, 42);
  EXPECT_EQ(r.worst_row_err_ratio, 1.0);
  EXPECT_EQ(r.bad_rows, 1);
  EXPECT_EQ(r.verdict, Verdict::Incorrect);
  EXPECT_NE(r.reason.find("row 42"), std::string::npos) << r.reason;
}

TEST(Check, Bf16OutputsAndPoison) {
  std::vector<float> ref = {1.0f, -2.5f, 3.14159f, 100.0f};
  std::vector<uint16_t> out(4);
  poison_nan(out.data(), 4);
  EXPECT_EQ(check_output(ref.data(), out.data(), 1, 4).unwritten, 4);
  for (size_t i = 0; i < 4; ++i) out[i] = float_to_bf16(ref[i]);
  const auto r = check_output(ref.data(), out.data(), 1, 4);
  EXPECT_EQ(r.verdict, Verdict::Passed) << r.reason;
  EXPECT_GT(r.max_abs_err, 0.0);  // bf16 rounding of 3.14159 and nothing above tolerance
  EXPECT_TRUE(std::isnan(bf16_to_float(kPoisonBf16Bits)));
}

TEST(Check, SampledRowsCheckOnlyTheSampleButScanEverythingForWrites) {
  const int rows = 10, cols = 4;
  std::vector<float> full(rows * cols, 1.0f), out(rows * cols, 1.0f);
  out[static_cast<size_t>(5 * cols)] = 9.0f;  // wrong, but row 5 is not sampled
  const std::vector<int64_t> sample = {0, 9, 3};
  std::vector<float> ref_rows(sample.size() * cols, 1.0f);
  auto r = check_output_rows(ref_rows.data(), out.data(), sample, rows, cols);
  EXPECT_EQ(r.verdict, Verdict::Passed);
  EXPECT_EQ(r.checked, 12);
  out[static_cast<size_t>(3 * cols + 1)] = 2.0f;  // sampled row 3 wrong
  r = check_output_rows(ref_rows.data(), out.data(), sample, rows, cols);
  EXPECT_EQ(r.verdict, Verdict::Incorrect);
  EXPECT_EQ(r.worst_row, 3);
  out[static_cast<size_t>(3 * cols + 1)] = 1.0f;
  poison_nan(out.data() + 6 * cols, 1);  // unwritten cell outside the sample
  r = check_output_rows(ref_rows.data(), out.data(), sample, rows, cols);
  EXPECT_EQ(r.unwritten, 1);
  EXPECT_EQ(r.verdict, Verdict::Incorrect);
}

// The device path brings back only the sampled rows and counts unwritten cells where the output lives:
// it must reach the same verdicts, reasons and numbers as the full-output check.
TEST(Check, GatheredRowsGiveTheSameResultAsTheFullOutput) {
  const int rows = 12, cols = 16;
  const std::vector<int64_t> sample = {0, 11, 4, 7};
  std::vector<float> ref_rows(sample.size() * cols);
  for (size_t i = 0; i < ref_rows.size(); ++i) ref_rows[i] = 0.25f * static_cast<float>(i % 13) - 1.0f;
  auto make_out = [&] {
    std::vector<uint16_t> out(rows * cols, float_to_bf16(0.5f));
    for (size_t k = 0; k < sample.size(); ++k)
      for (int c = 0; c < cols; ++c)
        out[static_cast<size_t>(sample[k] * cols + c)] = float_to_bf16(ref_rows[k * cols + static_cast<size_t>(c)]);
    return out;
  };
  auto both = [&](const std::vector<uint16_t>& out) {
    const CheckResult full = check_output_rows(ref_rows.data(), out.data(), sample, rows, cols);
    int64_t unwritten = 0;
    for (uint16_t v : out) unwritten += is_poison_bf16(v);
    std::vector<uint16_t> gathered;
    for (int64_t r : sample)
      gathered.insert(gathered.end(), out.begin() + r * cols, out.begin() + (r + 1) * cols);
    const CheckResult g = check_gathered_rows(ref_rows.data(), gathered.data(), sample, rows, cols, unwritten);
    EXPECT_EQ(g.verdict, full.verdict);
    EXPECT_EQ(g.reason, full.reason);
    EXPECT_EQ(g.unwritten, full.unwritten);
    EXPECT_EQ(g.non_finite, full.non_finite);
    EXPECT_EQ(g.worst_row, full.worst_row);
    EXPECT_DOUBLE_EQ(g.err_ratio, full.err_ratio);
    EXPECT_DOUBLE_EQ(g.max_abs_err, full.max_abs_err);
    return g;
  };
  auto out = make_out();
  EXPECT_EQ(both(out).verdict, Verdict::Passed);
  out[static_cast<size_t>(7 * cols + 3)] = float_to_bf16(40.0f);  // sampled row 7 wrong
  EXPECT_EQ(both(out).worst_row, 7);
  out = make_out();
  poison_nan(out.data() + 5 * cols, 3);  // unwritten outside the sample
  EXPECT_EQ(both(out).unwritten, 3);
  poison_nan(out.data() + 4 * cols + 2, 1);  // and inside it: unwritten, not "computed NaN"
  const CheckResult r = both(out);
  EXPECT_EQ(r.unwritten, 4);
  EXPECT_EQ(r.non_finite, 0);
  out = make_out();
  out[static_cast<size_t>(11 * cols)] = 0x7fc0;  // a computed NaN in a sampled row
  EXPECT_EQ(both(out).non_finite, 1);
}

}  // namespace
}  // namespace cktune
