#include "cktune/compare/compare.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "cktune/core/error.hpp"

namespace cktune {
namespace {

const std::string kResults = CKTUNE_TEST_DATA "/results/";
const std::string kAiter = CKTUNE_TEST_DATA "/aiter-optest/";

const ShapeComparison* shape(const Comparison& c, const std::string& m, const std::string& n, const std::string& k) {
  for (const auto& s : c.shapes)
    if (s.key.cells == std::vector<std::string>{m, n, k}) return &s;
  return nullptr;
}

TEST(Compare, SizeClasses) {
  EXPECT_EQ(size_class(1), SizeClass::Decode);
  EXPECT_EQ(size_class(63), SizeClass::Decode);
  EXPECT_EQ(size_class(64), SizeClass::Medium);
  EXPECT_EQ(size_class(512), SizeClass::Medium);
  EXPECT_EQ(size_class(513), SizeClass::Prefill);
}

// tests/data/results: 7 shared shapes, speedups 2.0, 20/20.2, 0.8, 1.25, 1.0, 1.5 and one that failed after;
// M=8192 only before, M=2 only after.
TEST(Compare, HandMadePairMath) {
  Comparison c = compare(load_compare_input(kResults + "a8w8_blockscale_before.csv"),
                         load_compare_input(kResults + "a8w8_blockscale_after.csv"), CompareOptions{});
  EXPECT_EQ(c.before_info.format, "cktune-results");
  ASSERT_EQ(c.shapes.size(), 7u);
  const double s32 = 20.0 / 20.2;
  const double product = 2.0 * s32 * 0.8 * 1.25 * 1.0 * 1.5;
  EXPECT_EQ(c.overall.count, 6u);
  EXPECT_EQ(c.overall.not_measured, 1u);
  EXPECT_NEAR(c.overall.geomean, std::pow(product, 1.0 / 6), 1e-12);
  EXPECT_NEAR(c.overall.mean, (2.0 + s32 + 0.8 + 1.25 + 1.0 + 1.5) / 6, 1e-12);
  EXPECT_DOUBLE_EQ(c.overall.min, 0.8);
  EXPECT_DOUBLE_EQ(c.overall.max, 2.0);
  EXPECT_EQ(c.overall.improved, 3u);
  EXPECT_EQ(c.overall.regressed, 1u);
  EXPECT_EQ(c.overall.within_noise, 2u);

  const auto& decode = c.by_class[static_cast<size_t>(SizeClass::Decode)];
  EXPECT_EQ(decode.count, 3u);
  EXPECT_NEAR(decode.geomean, std::cbrt(2.0 * s32 * 1.0), 1e-12);
  const auto& medium = c.by_class[static_cast<size_t>(SizeClass::Medium)];
  EXPECT_EQ(medium.count, 2u);
  EXPECT_EQ(medium.regressed, 1u);
  EXPECT_NEAR(medium.geomean, std::sqrt(0.8 * 1.5), 1e-12);
  const auto& prefill = c.by_class[static_cast<size_t>(SizeClass::Prefill)];
  EXPECT_EQ(prefill.count, 1u);
  EXPECT_EQ(prefill.not_measured, 1u);

  ASSERT_EQ(c.groups.size(), 2u);
  EXPECT_EQ(c.groups[0].label, "N=4096,K=7168");  // numeric order: 4096 before 7168
  EXPECT_EQ(c.groups[0].all.count, 4u);
  EXPECT_EQ(c.groups[1].label, "N=7168,K=2048");
  EXPECT_EQ(c.groups[1].all.count, 2u);
  EXPECT_EQ(c.groups[1].by_class[static_cast<size_t>(SizeClass::Prefill)].not_measured, 1u);

  const auto* m1 = shape(c, "1", "4096", "7168");
  ASSERT_NE(m1, nullptr);
  EXPECT_EQ(m1->change, Change::Improved);
  EXPECT_DOUBLE_EQ(m1->speedup, 2.0);
  EXPECT_EQ(m1->after_kernel, "cktune_bs_64x128x128_1x1_w4");
  EXPECT_EQ(shape(c, "32", "4096", "7168")->change, Change::WithinNoise);
  EXPECT_EQ(shape(c, "128", "4096", "7168")->change, Change::Regressed);
  EXPECT_EQ(shape(c, "1024", "7168", "2048")->change, Change::NotMeasured);
  EXPECT_EQ(shape(c, "1024", "7168", "2048")->note, "after: failed: launch failed: invalid argument");
  EXPECT_EQ(m1->note, "");

  ASSERT_EQ(c.only_before.size(), 1u);
  EXPECT_EQ(c.only_before[0].cells[0], "8192");
  ASSERT_EQ(c.only_after.size(), 1u);
  EXPECT_EQ(c.only_after[0].cells[0], "2");
  EXPECT_TRUE(c.warnings.empty());
}

TEST(Compare, GroupByAnyKeyColumns) {
  CompareOptions o;
  o.group_by = {"K"};
  Comparison c = compare(load_compare_input(kResults + "a8w8_blockscale_before.csv"),
                         load_compare_input(kResults + "a8w8_blockscale_after.csv"), o);
  ASSERT_EQ(c.groups.size(), 2u);
  EXPECT_EQ(c.groups[0].label, "K=2048");  // numeric order
  EXPECT_EQ(c.groups[0].all.count, 2u);
  EXPECT_EQ(c.groups[0].all.not_measured, 1u);
  EXPECT_EQ(c.groups[1].label, "K=7168");
  EXPECT_EQ(c.groups[1].all.count, 4u);
  o.group_by = {"M"};  // one group per M: 7 shapes, 7 distinct M
  c = compare(load_compare_input(kResults + "a8w8_blockscale_before.csv"),
              load_compare_input(kResults + "a8w8_blockscale_after.csv"), o);
  EXPECT_EQ(c.groups.size(), 7u);
  o.group_by = {"expert"};
  EXPECT_THROW(compare(load_compare_input(kResults + "a8w8_blockscale_before.csv"),
                       load_compare_input(kResults + "a8w8_blockscale_after.csv"), o),
               Error);
}

// The fixtures' (N,K) groups: (4096,7168) and (7168,2048). DeepSeek-V3 at TP8 has o_proj = (7168, 2048)
// and no (4096, 7168); Llama-4-Maverick at TP8 has neither.
TEST(Compare, PerModelSummary) {
  CompareOptions o;
  o.models = {model_shapes("deepseek-v3@8"), model_shapes("llama-4-maverick@8")};
  EXPECT_TRUE(o.models[0].gemm_nk.count({7168, 2048}));
  Comparison c = compare(load_compare_input(kResults + "a8w8_blockscale_before.csv"),
                         load_compare_input(kResults + "a8w8_blockscale_after.csv"), o);
  ASSERT_EQ(c.models.size(), 1u);
  EXPECT_EQ(c.models[0].model, "deepseek-v3");
  EXPECT_EQ(c.models[0].tp, 8);
  EXPECT_EQ(c.models[0].family, Family::A8W8Blockscale);
  EXPECT_EQ(c.models[0].stats.count, 2u);         // M = 16 and 512
  EXPECT_EQ(c.models[0].stats.not_measured, 1u);  // the M=1024 shape failed after
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("llama-4-maverick TP8"), std::string::npos);
  const std::string text = render_comparison_text(c);
  EXPECT_NE(text.find("per model"), std::string::npos);
  EXPECT_EQ(comparison_json(c)["models"][0]["tp"], 8);

  // Fused MoE keys match on model_dim, inter_dim, expert, topk, with the shared expert folded in or not.
  const ModelShapes& ds = o.models[0];
  auto moe = [](const char* expert, const char* topk) {
    return ProblemKey{Family::Moe2Stages,
                      {"64", "7168", "256", expert, topk, "ActivationType.Silu", "torch.bfloat16",
                       "torch.float8_e4m3fnuz", "torch.float8_e4m3fnuz", "QuantType.per_1x128", "1", "0"}};
  };
  EXPECT_TRUE(ds.matches(moe("256", "8")));
  EXPECT_TRUE(ds.matches(moe("257", "9")));
  EXPECT_FALSE(ds.matches(moe("128", "8")));

  EXPECT_THROW(model_shapes("deepseek-v3"), Error);
  EXPECT_THROW(model_shapes("deepseek-v3@0"), Error);
  EXPECT_THROW(model_shapes("@8"), Error);
  EXPECT_THROW(model_shapes("no-such-model@8"), Error);
}

TEST(Compare, ThresholdAndMetricAndRole) {
  CompareOptions o;
  o.threshold_pct = 0.5;  // 20/20.2 = 0.990 is beyond the floor, but the p10..p90 intervals overlap
  Comparison c = compare(load_compare_input(kResults + "a8w8_blockscale_before.csv"),
                         load_compare_input(kResults + "a8w8_blockscale_after.csv"), o);
  EXPECT_EQ(shape(c, "32", "4096", "7168")->change, Change::WithinNoise);
  EXPECT_TRUE(shape(c, "32", "4096", "7168")->spread_known);

  o = CompareOptions{};
  o.metric = Metric::Tflops;
  c = compare(load_compare_input(kResults + "a8w8_blockscale_before.csv"),
              load_compare_input(kResults + "a8w8_blockscale_after.csv"), o);
  // TFLOPS are rounded to 2 decimals in the file: 2.94 -> 5.87.
  EXPECT_NEAR(shape(c, "1", "4096", "7168")->speedup, 5.87 / 2.94, 1e-12);
  EXPECT_EQ(shape(c, "1024", "7168", "2048")->change, Change::NotMeasured);

  o = CompareOptions{};
  o.role = ResultRole::Baseline;
  c = compare(load_compare_input(kResults + "a8w8_blockscale_before.csv"),
              load_compare_input(kResults + "a8w8_blockscale_after.csv"), o);
  EXPECT_EQ(c.shapes.size(), 7u);
  EXPECT_EQ(c.overall.within_noise, 7u);  // the same cuBLASLt numbers both times
}

TEST(Compare, AiterMarkdownLogs) {
  Comparison c = compare(load_compare_input(kAiter + "test_gemm_a8w8_blockscale_before.log"),
                         load_compare_input(kAiter + "test_gemm_a8w8_blockscale_after.log"), CompareOptions{});
  EXPECT_EQ(c.shapes.size(), 8u);  // 4 M values x (preshuffled, plain), the ck rows
  EXPECT_EQ(c.families().size(), 2u);
  const auto* s = shape(c, "1", "24576", "1536");
  ASSERT_NE(s, nullptr);

  CompareOptions asm_only;
  asm_only.role = ResultRole::Baseline;
  asm_only.backend = "aiter-asm";
  Comparison a = compare(load_compare_input(kAiter + "test_gemm_a8w8_blockscale_before.log"),
                         load_compare_input(kAiter + "test_gemm_a8w8_blockscale_after.log"), asm_only);
  EXPECT_EQ(a.shapes.size(), 8u);
  EXPECT_EQ(a.overall.within_noise, 8u);

  Comparison moe = compare(load_compare_input(kAiter + "test_moe_2stage_before.log"),
                           load_compare_input(kAiter + "test_moe_2stage_after.log"), CompareOptions{});
  EXPECT_EQ(moe.shapes.size(), 6u);
  ASSERT_EQ(moe.groups.size(), 2u);  // two MoE configurations, token plays M
  EXPECT_EQ(moe.groups[0].label.rfind("model_dim=4096,inter_dim=1536", 0), 0u) << moe.groups[0].label;
  EXPECT_EQ(moe.by_class[static_cast<size_t>(SizeClass::Prefill)].count, 1u);  // token 1024
}

// Synthetic results for the noise rule: one dispatch row per M with a given median and p10..p90.
ResultRow noisy_row(long m, double us, double p10, double p90, ResultRole role = ResultRole::Dispatch) {
  ResultRow r;
  r.gfx = "gfx942";
  r.cu_num = 304;
  r.key = ProblemKey{Family::A8W8Blockscale, {std::to_string(m), "7168", "2048"}};
  r.role = role;
  r.backend = "gpu";
  r.us = us;
  r.us_min = p10 * 0.99;
  r.us_p10 = p10;
  r.us_p90 = p90;
  return r;
}

CompareInput input_of(std::vector<ResultRow> rows, const std::string& path) {
  return CompareInput{path, "cktune-results", std::move(rows)};
}

// Two benches of the same table: medians wander by up to ~6% but stay inside each other's p10..p90, so
// nothing may count as improved or regressed, even with a threshold below the wander.
TEST(Compare, SameTableTwiceIsWithinNoise) {
  std::vector<ResultRow> first, second;
  const long ms[] = {1, 16, 64, 256, 1024, 4096};
  const double drift[] = {1.03, 0.97, 1.06, 0.95, 1.02, 0.98};  // second median / first median
  for (size_t i = 0; i < 6; ++i) {
    const double med = 10.0 * static_cast<double>(i + 1);
    first.push_back(noisy_row(ms[i], med, med * 0.92, med * 1.09));
    const double med2 = med * drift[i];
    second.push_back(noisy_row(ms[i], med2, med2 * 0.93, med2 * 1.08));
  }
  CompareOptions o;
  o.threshold_pct = 2.0;
  Comparison c = compare(input_of(first, "first.csv"), input_of(second, "second.csv"), o);
  EXPECT_EQ(c.overall.count, 6u);
  EXPECT_EQ(c.overall.within_noise, 6u);
  EXPECT_EQ(c.overall.improved, 0u);
  EXPECT_EQ(c.overall.regressed, 0u);
  for (const auto& s : c.shapes) {
    EXPECT_TRUE(s.spread_known);
    EXPECT_LE(s.speedup_lo, s.speedup);
    EXPECT_GE(s.speedup_hi, s.speedup);
  }
  // Without spreads (AITER op-test output has medians only) every drift beyond 2% counts: all but 1.02.
  for (auto* rows : {&first, &second})
    for (auto& r : *rows) r.us_p10 = r.us_p90 = -1;
  Comparison bare = compare(input_of(first, "first.csv"), input_of(second, "second.csv"), o);
  EXPECT_EQ(bare.overall.improved + bare.overall.regressed, 5u);
}

TEST(Compare, ChangeNeedsSeparatedIntervalsAndTheFloor) {
  std::vector<ResultRow> before = {noisy_row(1, 20, 19.8, 20.2), noisy_row(2, 20, 19.8, 20.2),
                                   noisy_row(4, 20, 19.0, 21.0), noisy_row(8, 20, 19.99, 20.01)};
  std::vector<ResultRow> after = {noisy_row(1, 15, 14.9, 15.1),    // tight, 1.33x: improved
                                  noisy_row(2, 25, 24.5, 25.5),    // tight, 0.8x: regressed
                                  noisy_row(4, 18.5, 17.0, 19.5),  // 1.08x but overlapping: noise
                                  noisy_row(8, 19.9, 19.89, 19.91)};  // separated, but 0.5% < floor
  Comparison c = compare(input_of(before, "b.csv"), input_of(after, "a.csv"), CompareOptions{});
  EXPECT_EQ(c.shapes[0].change, Change::Improved);
  EXPECT_EQ(c.shapes[1].change, Change::Regressed);
  EXPECT_EQ(c.shapes[2].change, Change::WithinNoise);
  EXPECT_EQ(c.shapes[3].change, Change::WithinNoise);
  EXPECT_NEAR(c.shapes[0].speedup_lo, 19.8 / 15.1, 1e-12);
  EXPECT_NEAR(c.shapes[0].speedup_hi, 20.2 / 14.9, 1e-12);
  // TFLOPS: the same separation, read on the inverted intervals.
  CompareOptions t;
  t.metric = Metric::Tflops;
  for (auto* rows : {&before, &after})
    for (auto& r : *rows) r.tflops = 100.0 / r.us;
  Comparison ct = compare(input_of(before, "b.csv"), input_of(after, "a.csv"), t);
  EXPECT_EQ(ct.shapes[0].change, Change::Improved);
  EXPECT_EQ(ct.shapes[1].change, Change::Regressed);
  EXPECT_EQ(ct.shapes[2].change, Change::WithinNoise);
  EXPECT_GT(ct.shapes[0].after_lo, ct.shapes[0].before_hi);
}

TEST(Compare, InterleavedFileSplitsByRole) {
  std::vector<ResultRow> rows = {noisy_row(1, 20, 19.8, 20.2, ResultRole::Against), noisy_row(1, 10, 9.9, 10.1),
                                 noisy_row(2, 20, 19.8, 20.2, ResultRole::Against), noisy_row(2, 20, 19.7, 20.3)};
  CompareInput in = input_of(rows, "bench.csv");
  EXPECT_TRUE(has_against_rows(in));
  auto [before, after] = split_interleaved(in, ResultRole::Dispatch);
  Comparison c = compare(before, after, CompareOptions{});
  ASSERT_EQ(c.shapes.size(), 2u);
  EXPECT_DOUBLE_EQ(c.shapes[0].speedup, 2.0);
  EXPECT_EQ(c.shapes[0].change, Change::Improved);
  EXPECT_EQ(c.shapes[1].change, Change::WithinNoise);
  EXPECT_FALSE(c.separate_runs);  // both sides from one run
  EXPECT_NE(runs_text(c).find("one run"), std::string::npos);
  EXPECT_THROW(split_interleaved(input_of({noisy_row(1, 10, 9, 11)}, "plain.csv"), ResultRole::Dispatch), Error);
}

// Two separate runs whose files hold the vendor baseline: the same kernel in both runs shows how much the
// machine moved per shape. The verdicts keep the noise rule; the shapes whose baseline moved get a note,
// and the warning counts the changed shapes that moved no more than their baseline did.
TEST(Compare, TheBaselineInBothRunsShowsAMachineThatChanged) {
  auto base = [](long m, double us) {
    ResultRow r = noisy_row(m, us, us * 0.99, us * 1.01, ResultRole::Baseline);
    r.kernel_name = "blaslt_h0";
    return r;
  };
  // M=1: the tuned kernel and cuBLASLt both 20% faster in the second run (the machine); M=2: the kernel
  // 2x faster while cuBLASLt held still (a real gain); M=4: nothing moved; M=8: the baseline picked
  // another algorithm in the second run, so it is no control there.
  std::vector<ResultRow> first = {noisy_row(1, 12.0, 11.9, 12.1), base(1, 24.0), noisy_row(2, 20.0, 19.8, 20.2),
                                  base(2, 30.0), noisy_row(4, 10.0, 9.9, 10.1), base(4, 15.0),
                                  noisy_row(8, 10.0, 9.9, 10.1), base(8, 15.0)};
  std::vector<ResultRow> second = {noisy_row(1, 10.0, 9.9, 10.1), base(1, 20.0), noisy_row(2, 10.0, 9.9, 10.1),
                                   base(2, 30.0), noisy_row(4, 10.0, 9.9, 10.1), base(4, 15.0),
                                   noisy_row(8, 10.0, 9.9, 10.1), base(8, 12.0)};
  second.back().kernel_name = "blaslt_h3";
  Comparison c = compare(input_of(first, "a.csv"), input_of(second, "b.csv"), CompareOptions{});
  ASSERT_EQ(c.shapes.size(), 4u);
  EXPECT_EQ(c.shapes[0].change, Change::Improved);  // the rule is unchanged
  EXPECT_DOUBLE_EQ(c.shapes[0].baseline_speedup, 1.2);
  EXPECT_NE(c.shapes[0].note.find("baseline 1.200x"), std::string::npos);
  EXPECT_EQ(c.shapes[1].change, Change::Improved);
  EXPECT_DOUBLE_EQ(c.shapes[1].baseline_speedup, 1.0);
  EXPECT_TRUE(c.shapes[1].note.empty());
  EXPECT_DOUBLE_EQ(c.shapes[3].baseline_speedup, 0.0);  // different baseline kernels: unknown
  const auto& d = c.baseline_drift;
  EXPECT_EQ(d.count, 3u);
  EXPECT_EQ(d.moved, 1u);
  EXPECT_EQ(d.changed, 2u);
  EXPECT_EQ(d.explained, 1u);  // M=1's 1.2x is its baseline's 1.2x
  EXPECT_NEAR(d.geomean, std::cbrt(1.2), 1e-12);
  bool warned = false;
  for (const auto& w : c.warnings) warned = warned || w.find("moved beyond ±3% on 1 of 3 shapes") != std::string::npos;
  EXPECT_TRUE(warned);
  EXPECT_EQ(comparison_json(c)["baseline_drift"]["explained"], 1);

  // One run (an interleaved file) needs no control, and a baseline-role comparison is the control itself.
  Comparison same = compare(input_of(first, "a.csv"), input_of(first, "a.csv"), CompareOptions{});
  EXPECT_EQ(same.baseline_drift.count, 0u);
  CompareOptions role;
  role.role = ResultRole::Baseline;
  Comparison bases = compare(input_of(first, "a.csv"), input_of(second, "b.csv"), role);
  EXPECT_EQ(bases.baseline_drift.count, 0u);
}

// The study's view: the tuned table (dispatch rows) against the vendor library timed in the same bench run.
TEST(Compare, VsBaselineTakesBothSidesFromOneBenchFile) {
  auto [before, after] = split_vs_baseline(load_compare_input(kResults + "a8w8_blockscale_after.csv"));
  Comparison c = compare(before, after, CompareOptions{});
  ASSERT_NE(shape(c, "1", "4096", "7168"), nullptr);
  EXPECT_DOUBLE_EQ(shape(c, "1", "4096", "7168")->speedup, 18.0 / 10.0);  // cuBLASLt 18.0 us, tuned 10.0 us
  EXPECT_EQ(c.shapes.size(), 7u);
  EXPECT_EQ(shape(c, "1024", "7168", "2048")->change, Change::NotMeasured);  // its tuned kernel failed in the file
  EXPECT_FALSE(c.separate_runs);
  EXPECT_THROW(split_vs_baseline(input_of({noisy_row(1, 10, 9, 11)}, "plain.csv")), Error);
}

TEST(Compare, WarnsWhenMachinesDiffer) {
  CompareInput b = load_compare_input(kResults + "a8w8_blockscale_before.csv");
  CompareInput a = load_compare_input(kResults + "a8w8_blockscale_after.csv");
  for (auto& r : a.rows) r.cu_num = 304;
  Comparison c = compare(b, a, CompareOptions{});
  ASSERT_FALSE(c.warnings.empty());
  EXPECT_NE(c.warnings[0].find("different machines"), std::string::npos);
}

// Same gfx and cu_num, another board: a warning of its own (boards of one model differ by a few percent). One board
// on both sides, or a side that names none, says nothing.
TEST(Compare, WarnsWhenTheBoardsDiffer) {
  CompareInput b = load_compare_input(kResults + "a8w8_blockscale_before.csv");
  CompareInput a = load_compare_input(kResults + "a8w8_blockscale_after.csv");
  auto board_warnings = [](const Comparison& c) {
    size_t n = 0;
    for (const auto& w : c.warnings) n += w.find("different boards of the same model") != std::string::npos;
    return n;
  };
  EXPECT_EQ(board_warnings(compare(b, a, CompareOptions{})), 0u);  // neither names a board
  for (auto& r : b.rows) r.uuid = "GPU-aaaa";
  EXPECT_EQ(board_warnings(compare(b, a, CompareOptions{})), 0u);  // the after side names none
  for (auto& r : a.rows) r.uuid = "GPU-aaaa";
  EXPECT_EQ(board_warnings(compare(b, a, CompareOptions{})), 0u);
  for (auto& r : a.rows) r.uuid = "GPU-bbbb";
  Comparison c = compare(b, a, CompareOptions{});
  ASSERT_EQ(board_warnings(c), 1u);
  bool named = false;
  for (const auto& w : c.warnings) named = named || (w.find("before GPU-aaaa / after GPU-bbbb") != std::string::npos);
  EXPECT_TRUE(named);
}

TEST(Compare, NoMatchIsAnError) {
  CompareInput b = load_compare_input(kResults + "a8w8_blockscale_before.csv");
  CompareInput m = load_compare_input(kAiter + "test_moe_2stage_before.log");
  EXPECT_THROW(compare(b, m, CompareOptions{}), Error);
  EXPECT_THROW(load_compare_input(kResults + "missing.csv"), Error);
  // A table that is neither format.
  EXPECT_THROW(load_compare_input(CKTUNE_TEST_DATA "/aiter-configs/a8w8_blockscale_untuned_gemm.csv"), Error);
}

TEST(Compare, TextAndJson) {
  Comparison c = compare(load_compare_input(kResults + "a8w8_blockscale_before.csv"),
                         load_compare_input(kResults + "a8w8_blockscale_after.csv"), CompareOptions{});
  std::string text = render_comparison_text(c);
  EXPECT_NE(text.find("2.000x"), std::string::npos);
  EXPECT_NE(text.find("regressed"), std::string::npos);
  EXPECT_NE(text.find("N=4096,K=7168"), std::string::npos);
  EXPECT_NE(text.find("only in before"), std::string::npos);
  EXPECT_NE(text.find("M=8192,N=4096,K=7168"), std::string::npos);
  // Two files are two runs, and the output says what that means for the verdicts and what to run instead.
  EXPECT_TRUE(c.separate_runs);
  EXPECT_NE(text.find("runs: two separate runs"), std::string::npos);
  EXPECT_NE(text.find("--against"), std::string::npos);

  nlohmann::json j = comparison_json(c);
  EXPECT_EQ(j["separate_runs"], true);
  EXPECT_EQ(j["summary"]["count"], 6);
  EXPECT_EQ(j["summary"]["improved"], 3);
  EXPECT_EQ(j["by_class"]["medium"]["range"], "64-512");
  EXPECT_EQ(j["shapes"].size(), 7u);
  EXPECT_EQ(j["shapes"][0]["key"]["M"], 1);
  EXPECT_EQ(j["unmatched"]["only_after"][0]["key"]["M"], 2);
  bool saw_null = false;
  for (const auto& s : j["shapes"])
    if (s["change"] == "not_measured") saw_null = s["speedup"].is_null();
  EXPECT_TRUE(saw_null);
}

}  // namespace
}  // namespace cktune
