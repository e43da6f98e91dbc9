#include "cktune/report/report.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cktune/core/error.hpp"
#include "cktune/core/io.hpp"

namespace cktune {
namespace {

namespace fs = std::filesystem;
const std::string kResults = CKTUNE_TEST_DATA "/results/";
const std::string kAiter = CKTUNE_TEST_DATA "/aiter-optest/";

ReportOptions options() {
  ReportOptions o;
  o.before = kResults + "a8w8_blockscale_before.csv";
  o.after = kResults + "a8w8_blockscale_after.csv";
  o.tuned = kResults + "a8w8_blockscale_tuned_gemm.csv";
  return o;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

TEST(Report, MarkdownHasExportLineAndEveryShape) {
  Report r = build_report(options());
  std::string md = render_report_markdown(r);
  EXPECT_EQ(md.find("no protocol recorded"), std::string::npos);  // cktune results carry theirs
  std::string tuned_abs = fs::absolute(kResults + "a8w8_blockscale_tuned_gemm.csv").lexically_normal().string();
  EXPECT_NE(md.find("export AITER_CONFIG_GEMM_A8W8_BLOCKSCALE=" + tuned_abs + "\n"), std::string::npos) << md;
  EXPECT_NE(md.find(fmt::format("export AITER_CONFIG_GEMM_A8W8_BLOCKSCALE={}:/path/to/aiter/aiter/configs/"
                                "a8w8_blockscale_tuned_gemm.csv",
                                tuned_abs)),
            std::string::npos);
  EXPECT_NE(md.find("cktune merge --check " + tuned_abs), std::string::npos);
  // Every compared shape is a row of the per-shape table: "| M | N | K | class |".
  for (const auto& s : r.comparison.shapes) {
    std::string row = fmt::format("| {} | {} | {} | {} |", s.key.cells[0], s.key.cells[1], s.key.cells[2],
                                  to_string(s.size_class));
    EXPECT_NE(md.find(row), std::string::npos) << row;
  }
  EXPECT_EQ(r.comparison.shapes.size(), 7u);
  // Unmatched shapes are listed too.
  EXPECT_NE(md.find("M=8192,N=4096,K=7168"), std::string::npos);
  // Environment, settings and provenance found next to the tuned table.
  EXPECT_NE(md.find("NVIDIA H100 80GB HBM3"), std::string::npos);
  EXPECT_NE(md.find("timer=events;warmup=5;iters=101"), std::string::npos);
  EXPECT_NE(md.find("| driver | 580.65.06 |"), std::string::npos);
  EXPECT_NE(md.find("error-ratio limit: settings.errRatio = 0.05"), std::string::npos);
  ASSERT_TRUE(r.tuned);
  EXPECT_EQ(r.tuned->rows, 7u);
  EXPECT_EQ(r.tuned->kernels, 2u);
  EXPECT_EQ(r.tuned->groups.size(), 2u);
  // Absolute paths of the inputs.
  EXPECT_NE(md.find(fs::absolute(kResults + "a8w8_blockscale_before.csv").lexically_normal().string()),
            std::string::npos);
  // Summary by class.
  EXPECT_NE(md.find("| decode | 1-63 | 3 |"), std::string::npos);
  EXPECT_NE(md.find("| prefill | >512 | 1 |"), std::string::npos);
}

// The after run's cuBLASLt rows give the tuned table's standing against the vendor library, per class and
// per model (the PTPC study's table), in the same report.
TEST(Report, AfterRunWithVendorRowsGetsTheVendorSection) {
  ReportOptions o = options();
  o.compare.models = {model_shapes("deepseek-v3@8")};
  Report r = build_report(o);
  ASSERT_TRUE(r.vs_vendor);
  std::string md = render_report_markdown(r);
  const size_t at = md.find("## Against the vendor library");
  ASSERT_NE(at, std::string::npos) << md;
  EXPECT_NE(md.find("| deepseek-v3 | 8 | a8w8_blockscale |", at), std::string::npos) << md.substr(at, 1500);
  bool found = false;
  for (const auto& sc : r.vs_vendor->shapes)
    if (sc.key.cells == std::vector<std::string>{"1", "4096", "7168"}) {
      EXPECT_DOUBLE_EQ(sc.speedup, 18.0 / 10.0);  // cuBLASLt 18.0 us, tuned 10.0 us in the after file
      found = true;
    }
  EXPECT_TRUE(found);
  o.compare.role = ResultRole::Baseline;  // comparing the baselines of two runs: no vendor section
  EXPECT_FALSE(build_report(o).vs_vendor);
}

// Each measured shape against its hardware floor on the after run's device (H100 SXM: fp8 1979 TFLOP/s,
// 3.35 TB/s by its datasheet), with the vendor library's time beside it.
TEST(Report, SaysHowFarEachShapeIsFromItsHardwareFloor) {
  Report r = build_report(options());
  const HardwareFloors& f = r.floors;
  ASSERT_TRUE(f.peaks) << f.missing;
  EXPECT_EQ(f.device, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(f.peaks->model, "H100 SXM");
  EXPECT_EQ(f.shapes.size(), 6u);  // the shape whose after run failed has no time to hold against a floor
  // M=1, N=4096, K=7168 reads 7168 + 4096*7168 bytes and writes 2*4096: 29,375,488 bytes at 3.35 TB/s.
  const FloorShape* decode = f.find({Family::A8W8Blockscale, {"1", "4096", "7168"}});
  ASSERT_NE(decode, nullptr);
  EXPECT_TRUE(decode->floor.memory_bound());
  EXPECT_NEAR(decode->floor.us(), 29375488.0 / 3.35e6, 1e-9);
  EXPECT_DOUBLE_EQ(decode->after_us, 10.0);
  EXPECT_DOUBLE_EQ(decode->vendor_us, 18.0);
  // M=4096: 2*4096*4096*7168 FLOP at 1979 TFLOP/s, compute-bound.
  const FloorShape* prefill = f.find({Family::A8W8Blockscale, {"4096", "4096", "7168"}});
  ASSERT_NE(prefill, nullptr);
  EXPECT_FALSE(prefill->floor.memory_bound());
  EXPECT_NEAR(prefill->floor.us(), 2.0 * 4096 * 4096 * 7168 / 1979e6, 1e-9);
  EXPECT_EQ(f.find({Family::A8W8Blockscale, {"1024", "7168", "2048"}}), nullptr);

  std::string md = render_report_markdown(r);
  const size_t at = md.find("## Against the hardware floors");
  ASSERT_NE(at, std::string::npos) << md;
  EXPECT_NE(md.find("H100 SXM, datasheet", at), std::string::npos);
  EXPECT_NE(md.find("fp8 1979 TFLOP/s dense, memory 3.35 TB/s", at), std::string::npos);
  EXPECT_NE(md.find("### Furthest from the floor", at), std::string::npos);
  // The furthest shape is listed first: 320 us against 121.5 us (2.63x), the vendor's 360 us 2.96x.
  EXPECT_NE(md.find("| a8w8_blockscale M=4096,N=4096,K=7168 | prefill | compute | 121.5 | 320.0 | 2.63x |", at),
            std::string::npos)
      << md.substr(at, 3000);
  EXPECT_NE(md.find("| 2.96x |", at), std::string::npos);
  // And every shape of the per-shape table gets its ratio.
  EXPECT_NE(md.find("| speedup | after x floor | change |"), std::string::npos);
  EXPECT_NE(md.find(fmt::format("| {:.2f}x |", 10.0 / (29375488.0 / 3.35e6))), std::string::npos);
}

TEST(Report, FloorsTakeMeasuredCeilingsAndSayWhenThePeaksAreUnknown) {
  ReportOptions o = options();
  o.peak_tflops = 1300;  // e.g. the best fp8 rate measured on the chip
  Report r = build_report(o);
  ASSERT_TRUE(r.floors.peaks);
  EXPECT_EQ(r.floors.peaks->source, "datasheet, the tensor rate from the command line");
  EXPECT_DOUBLE_EQ(r.floors.peaks->memory_tbps, 3.35);
  EXPECT_NEAR(r.floors.find({Family::A8W8Blockscale, {"4096", "4096", "7168"}})->floor.us(),
              2.0 * 4096 * 4096 * 7168 / 1300e6, 1e-9);

  // A device without a datasheet entry: the section says so and how to give the peaks.
  fs::path dir = fs::temp_directory_path() / "cktune_report_floors_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string after = read_input(kResults + "a8w8_blockscale_after.csv");
  for (size_t p = after.find("NVIDIA H100 80GB HBM3"); p != std::string::npos;
       p = after.find("NVIDIA H100 80GB HBM3", p))
    after.replace(p, 21, "Some GPU");
  const std::string unknown = (dir / "after.csv").string();
  write_file_atomic(unknown, after);
  ReportOptions u = options();
  u.after = unknown;
  Report ru = build_report(u);
  EXPECT_FALSE(ru.floors.peaks);
  EXPECT_NE(ru.floors.missing.find("no datasheet peaks are known for Some GPU"), std::string::npos) << ru.floors.missing;
  std::string md = render_report_markdown(ru);
  EXPECT_NE(md.find("Give both --peak-tflops"), std::string::npos);
  EXPECT_EQ(md.find("after x floor"), std::string::npos);
  u.peak_tbps = 2.0;  // one of the two is not enough
  EXPECT_FALSE(build_report(u).floors.peaks);
  u.peak_tflops = 1000;
  Report given = build_report(u);
  ASSERT_TRUE(given.floors.peaks);
  EXPECT_EQ(given.floors.peaks->source, "command line");
  EXPECT_NEAR(given.floors.find({Family::A8W8Blockscale, {"1", "4096", "7168"}})->floor.us(), 29375488.0 / 2e6, 1e-9);
  fs::remove_all(dir);
}

TEST(Report, HtmlIsSelfContainedWithOneChartPerGroup) {
  Report r = build_report(options());
  std::string html = render_report_html(r);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  // The overview (every group on the same axes) and one chart per group.
  EXPECT_EQ(count(html, "<svg"), r.comparison.groups.size() + 1);
  EXPECT_EQ(count(html, "</svg>"), r.comparison.groups.size() + 1);
  EXPECT_EQ(r.comparison.groups.size(), 2u);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_NE(html.find("export AITER_CONFIG_GEMM_A8W8_BLOCKSCALE="), std::string::npos);
  // Tags balance for the elements the renderer opens.
  for (std::string tag : {"table", "tr", "ul", "figure", "pre", "code", "p", "div"})
    EXPECT_EQ(count(html, "<" + tag + ">") + count(html, "<" + tag + " "), count(html, "</" + tag + ">")) << tag;
  // The text of cells is escaped: no raw tag inside a table cell other than <code>.
  EXPECT_FALSE(std::regex_search(html, std::regex("<td[^>]*><(?!/td>|code>)")));
}

TEST(Report, ChartPlotsEveryMeasuredShapeAndTheReferenceLine) {
  Report r = build_report(options());
  // Group N=4096,K=7168 has 4 measured shapes; N=7168,K=2048 has 2 measured and one not.
  std::string a = speedup_chart_svg(r.comparison, 0);
  std::string b = speedup_chart_svg(r.comparison, 1);
  EXPECT_EQ(count(a, "<circle"), 4u);
  EXPECT_EQ(count(b, "<circle"), 2u);
  EXPECT_EQ(a.find("<polyline"), std::string::npos);  // points only: sizes in between were not measured
  EXPECT_EQ(count(a, "opacity=\"0.6\""), 4u);             // one p10..p90 bar per point
  EXPECT_NE(a.find("1.00x"), std::string::npos);          // a y tick at the reference
  EXPECT_NE(a.find("stroke-width=\"1.5\""), std::string::npos);
  EXPECT_NE(a.find("<title>M=1: 2.000x</title>"), std::string::npos);
  EXPECT_NE(a.find("M (log2)"), std::string::npos);
  EXPECT_THROW(speedup_chart_svg(r.comparison, 2), std::out_of_range);
}

TEST(Report, OverviewChartPutsEveryGroupOnOneAxis) {
  Report r = build_report(options());
  std::string svg = overview_chart_svg(r.comparison);
  // 6 measured shapes: one speedup marker and two latency markers each, plus one legend marker per group.
  EXPECT_EQ(count(svg, "<circle"), 6u * 3 + r.comparison.groups.size());
  EXPECT_NE(svg.find("N=4096,K=7168"), std::string::npos);
  EXPECT_NE(svg.find("N=7168,K=2048"), std::string::npos);
  EXPECT_NE(svg.find("median µs (log)"), std::string::npos);
  EXPECT_EQ(svg.find("<polyline"), std::string::npos);
}

TEST(Report, VerdictFollowsNoiseAndFailures) {
  CompareInput b{"b.csv", "cktune-results", {}}, a{"a.csv", "cktune-results", {}};
  auto row = [](long m, double us, double spread) {
    ResultRow x;
    x.key = ProblemKey{Family::A8W8Blockscale, {std::to_string(m), "4096", "7168"}};
    x.backend = "gpu";
    x.us = us;
    x.us_p10 = us * (1 - spread);
    x.us_p90 = us * (1 + spread);
    return x;
  };
  b.rows = {row(1, 20, 0.01), row(2, 20, 0.01), row(4, 20, 0.01)};
  a.rows = {row(1, 10, 0.01), row(2, 20.1, 0.01), row(4, 30, 0.01)};
  TunedTableInfo t;
  t.path = "/abs/t.csv";
  ReportVerdict v = decide(compare(b, a, CompareOptions{}), t);
  EXPECT_EQ(v.kind, ReportVerdict::Kind::DeployWithout);
  ASSERT_EQ(v.drop.size(), 1u);
  EXPECT_EQ(v.drop[0].key.cells[0], "4");
  EXPECT_EQ(v.headline, "deploy without rows M=4,N=4096,K=7168");

  a.rows[2] = row(4, 19.9, 0.01);  // now within noise
  v = decide(compare(b, a, CompareOptions{}), t);
  EXPECT_EQ(v.kind, ReportVerdict::Kind::Deploy);
  EXPECT_EQ(v.command, "export AITER_CONFIG_GEMM_A8W8_BLOCKSCALE=/abs/t.csv");

  a.rows[0] = row(1, 19.8, 0.05);  // no gain left outside noise
  v = decide(compare(b, a, CompareOptions{}), t);
  EXPECT_EQ(v.kind, ReportVerdict::Kind::DoNotDeploy);

  a.rows[0] = row(1, 10, 0.01);
  a.rows[1].us = -1;  // fails after tuning
  v = decide(compare(b, a, CompareOptions{}), t);
  EXPECT_EQ(v.kind, ReportVerdict::Kind::DoNotDeploy);
  EXPECT_EQ(v.headline, "do not deploy");
}

// Two runs with cuBLASLt in both: a shape that regressed exactly as cuBLASLt did is still left out (the
// safe side), and the verdict's reasons say that the machine moved there.
TEST(Report, VerdictSaysWhichChangesTheBaselineMadeToo) {
  CompareInput b{"b.csv", "cktune-results", {}}, a{"a.csv", "cktune-results", {}};
  auto row = [](long m, double us, ResultRole role) {
    ResultRow x;
    x.key = ProblemKey{Family::A8W8Blockscale, {std::to_string(m), "4096", "7168"}};
    x.backend = role == ResultRole::Baseline ? "cublaslt" : "gpu";
    x.kernel_name = role == ResultRole::Baseline ? "blaslt_h0" : "k";
    x.role = role;
    x.us = us;
    x.us_p10 = us * 0.99;
    x.us_p90 = us * 1.01;
    return x;
  };
  // M=1 a real gain (cuBLASLt still); M=2 slower by 20%, and so was cuBLASLt: the machine.
  b.rows = {row(1, 20, ResultRole::Dispatch), row(1, 30, ResultRole::Baseline), row(2, 20, ResultRole::Dispatch),
            row(2, 30, ResultRole::Baseline)};
  a.rows = {row(1, 10, ResultRole::Dispatch), row(1, 30, ResultRole::Baseline), row(2, 24, ResultRole::Dispatch),
            row(2, 36, ResultRole::Baseline)};
  TunedTableInfo t;
  t.path = "/abs/t.csv";
  ReportVerdict v = decide(compare(b, a, CompareOptions{}), t);
  EXPECT_EQ(v.kind, ReportVerdict::Kind::DeployWithout);
  bool said = false;
  for (const auto& r : v.reasons)
    said = said || r.find("0 improved and 1 regressed shape(s) changed no more than the vendor baseline") !=
                       std::string::npos;
  EXPECT_TRUE(said);
  // One run: no such reason.
  v = decide(compare(b, b, CompareOptions{}), t);
  for (const auto& r : v.reasons) EXPECT_EQ(r.find("vendor baseline did"), std::string::npos);
}

// The tuned table's `us` against the after run's time of the same kernel: a winner that did not hold up
// is named; rows whose kernel the after run did not run are counted apart, not compared.
TEST(Report, SaysWhetherBenchReproducedTunesTimes) {
  Report r = build_report(options());
  ASSERT_TRUE(r.agreement);
  // Compared shapes (in both runs): M = 1, 16, 32, 128 ran their rows' kernel (M = 2 ran after only).
  EXPECT_EQ(r.agreement->compared, 4u);
  EXPECT_EQ(r.agreement->other_kernel, 2u);  // M = 512 and 4096: the row names 128x128, the run ran 64x128
  EXPECT_EQ(r.agreement->within, 4u);
  EXPECT_TRUE(r.agreement->outside.empty());
  // M = 1024 ran in both runs but has no row in the table: counted apart, as the runtime's padded lookup
  // or the default serves it (it failed after, so it is neither regressed nor slower than cuBLASLt).
  EXPECT_EQ(r.agreement->no_row, 1u);
  EXPECT_EQ(r.agreement->no_row_regressed, 0u);
  EXPECT_EQ(r.agreement->no_row_vendor_slower, 0u);
  std::string md = render_report_markdown(r);
  EXPECT_NE(md.find("1 compared shape(s) have no row of their own in the tuned table for the gfx / cu_num"), std::string::npos)
      << md;
  EXPECT_NE(md.find("are slower than the vendor library"), std::string::npos) << md;
  EXPECT_NE(md.find("## Tune and bench agree"), std::string::npos) << md;
  EXPECT_NE(md.find("4 of 4 shapes within 10%"), std::string::npos) << md;

  // The same table claiming 15.0 us at M=32 (the run measured 20.2): outside the tolerance, named.
  fs::path dir = fs::temp_directory_path() / "cktune_report_agreement_test";
  fs::create_directories(dir);
  std::string table = read_input(kResults + "a8w8_blockscale_tuned_gemm.csv");
  const std::string row = "sm_90,132,32,4096,7168,cktune,11,0,20.2,";
  ASSERT_NE(table.find(row), std::string::npos);
  table.replace(table.find(row), row.size(), "sm_90,132,32,4096,7168,cktune,11,0,15.0,");
  ReportOptions o = options();
  o.tuned = (dir / "a8w8_blockscale_tuned_gemm.csv").string();
  write_file_atomic(o.tuned, table);
  Report off = build_report(o);
  ASSERT_TRUE(off.agreement);
  EXPECT_EQ(off.agreement->within, 3u);
  ASSERT_EQ(off.agreement->outside.size(), 1u);
  EXPECT_NE(off.agreement->outside[0].find("M=32,N=4096,K=7168"), std::string::npos) << off.agreement->outside[0];
  EXPECT_NE(off.agreement->outside[0].find("(1.35x)"), std::string::npos) << off.agreement->outside[0];
  EXPECT_NEAR(off.agreement->max, 20.2 / 15.0, 1e-9);
  EXPECT_NE(render_report_markdown(off).find("did not hold up"), std::string::npos);
  fs::remove_all(dir);

  // Without a tuned table there is nothing to check against.
  ReportOptions none = options();
  none.tuned.clear();
  EXPECT_FALSE(build_report(none).agreement);
}

// AITER keys a table's rows by cu_num too, so a table may hold rows of several machines for one shape. The report
// checks bench against the row of the machine bench ran on, and the deploy table leaves out only that machine's row
// of a regressed shape.
TEST(Report, TakesTheRowsOfTheMachineTheAfterRunMeasuredOn) {
  fs::path dir = fs::temp_directory_path() / "cktune_report_machines_test";
  fs::create_directories(dir);
  // Another machine's rows for the same keys, first in the file, with other kernels and times.
  std::string table = read_input(kResults + "a8w8_blockscale_tuned_gemm.csv");
  const size_t body = table.find('\n') + 1;
  table.insert(body, "gfx942,304,1,4096,7168,cktune,4,0,99.0,cktune_bs_128x128x128_2x1_w8,0.6,300.0,0.0\n"
                     "gfx942,304,32,4096,7168,cktune,11,0,5.0,cktune_bs_64x128x128_1x1_w4,376.0,5900.0,0.0\n");
  ReportOptions o = options();
  o.tuned = (dir / "a8w8_blockscale_tuned_gemm.csv").string();
  write_file_atomic(o.tuned, table);
  Report r = build_report(o);
  ASSERT_TRUE(r.agreement);
  EXPECT_EQ(r.agreement->compared, 4u);  // as with the one-machine table: the sm_90 rows are the ones compared
  EXPECT_EQ(r.agreement->within, 4u);
  EXPECT_EQ(r.agreement->other_kernel, 2u);
  EXPECT_TRUE(r.agreement->outside.empty());

  // Only the other machine's rows: no row for sm_90/132, so every compared shape counts as having none.
  std::string other = "gfx,cu_num,M,N,K,libtype,kernelId,splitK,us,kernelName,tflops,bw,errRatio\n" +
                      table.substr(body, table.find('\n', table.find('\n', body) + 1) + 1 - body);
  write_file_atomic(o.tuned, other);
  Report none = build_report(o);
  ASSERT_TRUE(none.agreement);
  EXPECT_EQ(none.agreement->compared, 0u);
  EXPECT_EQ(none.agreement->other_kernel, 0u);
  EXPECT_GT(none.agreement->no_row, 0u);

  // The deploy table: M=32 regressed on sm_90/132; the gfx942 row of M=32 stays.
  write_file_atomic(o.tuned, table);
  const std::string out = (dir / "deploy.csv").string();
  std::vector<ReportVerdict::Dropped> drop{{ProblemKey{Family::A8W8Blockscale, {"32", "4096", "7168"}}, {"sm_90", 132}}};
  EXPECT_EQ(write_filtered_table(o.tuned, Family::A8W8Blockscale, drop, out), 1u);
  const std::string kept = read_input(out);
  EXPECT_NE(kept.find("gfx942,304,32,4096,7168"), std::string::npos) << kept;
  EXPECT_EQ(kept.find("sm_90,132,32,4096,7168"), std::string::npos) << kept;
  // A regression measured where the run recorded no machine leaves out every machine's row of the shape.
  drop[0].machine = {};
  EXPECT_EQ(write_filtered_table(o.tuned, Family::A8W8Blockscale, drop, out), 2u);

  // A cu_num that is not a whole number would match no machine: an error naming the cell, and no file written.
  std::string bad = table;
  bad.replace(bad.find("gfx942,304,32"), 13, "gfx942,30x,32");
  write_file_atomic(o.tuned, bad);
  try {
    build_report(o);
    ADD_FAILURE() << "a cu_num of 30x was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 3u);
    EXPECT_EQ(e.column(), 8u);
    EXPECT_NE(e.message().find("cu_num has the value '30x'"), std::string::npos) << e.message();
  }
  fs::remove(out);
  EXPECT_THROW(write_filtered_table(o.tuned, Family::A8W8Blockscale, drop, out), InputError);
  EXPECT_FALSE(fs::exists(out));

  // gfx as AMD's runtime writes it, with its features: the same machine as the plain arch name.
  std::string featured = table;
  featured.replace(featured.find("gfx942,304,32"), 13, "gfx942:sramecc+:xnack-,304,32");
  write_file_atomic(o.tuned, featured);
  drop[0].machine = {"gfx942", 304};
  EXPECT_EQ(write_filtered_table(o.tuned, Family::A8W8Blockscale, drop, out), 1u);
  EXPECT_EQ(read_input(out).find("gfx942:sramecc+:xnack-,304,32"), std::string::npos);
  fs::remove_all(dir);
}

// Fused MoE: the table's `us` is us1 + us2 as AITER writes it, while bench times the pipeline with its sorting, so tune's
// times come from its profile (-o2): given with --profile, or found through the provenance's "profile". The data are a
// DeepSeek-V3 TP8 tune of 7 token counts and the `bench --config --against default` of its table (H200, 2026-11-30).
TEST(Report, MoeComparesBenchWithTheProfilesPipelineTimes) {
  ReportOptions o;
  o.after = kResults + "moe_2stages_after.csv";
  o.tuned = kResults + "moe_2stages_tuned_fmoe.csv";

  // No profile: the section says where tune's times are instead of comparing with us1 + us2.
  Report bare = build_report(o);
  ASSERT_TRUE(bare.agreement);
  EXPECT_TRUE(bare.agreement->needs_profile);
  EXPECT_EQ(bare.agreement->compared, 0u);
  EXPECT_NE(render_report_markdown(bare).find("Pass the tune's -o2 file with --profile"), std::string::npos);

  o.profiles = {kResults + "moe_2stages_profile.csv"};
  Report r = build_report(o);
  ASSERT_TRUE(r.agreement);
  EXPECT_FALSE(r.agreement->needs_profile);
  EXPECT_EQ(r.agreement->compared, 7u);  // the one-launch kernel at 3 tokens and six two-stage pipelines
  EXPECT_EQ(r.agreement->other_kernel, 0u);
  EXPECT_EQ(r.agreement->within, 7u);
  // bench / profile: 46.16 / 46.72 at 3 tokens ... 979.424 / 1019.392 at 6144 (the lowest).
  EXPECT_NEAR(r.agreement->min, 979.424 / 1019.392, 1e-4);
  EXPECT_NEAR(r.agreement->max, 438.544 / 439.152, 1e-4);
  const std::string md = render_report_markdown(r);
  EXPECT_NE(md.find("7 of 7 shapes within 10% of the time tune measured (its profile)"), std::string::npos) << md;

  // Found through the provenance, as tune records it; a profile of another family is refused.
  fs::path dir = fs::temp_directory_path() / "cktune_report_moe_profile_test";
  fs::create_directories(dir);
  o.profiles.clear();
  o.provenance = (dir / "p.json").string();
  write_file_atomic(o.provenance, fmt::format("{{\"profile\": \"{}\"}}", kResults + "moe_2stages_profile.csv"));
  Report via = build_report(o);
  ASSERT_TRUE(via.agreement);
  EXPECT_EQ(via.agreement->within, 7u);
  o.profiles = {kResults + "a8w8_blockscale_after.csv"};
  EXPECT_THROW(build_report(o), InputError);

  // A table merged from several tunes (shards): each key's time from the profile that holds it, given as repeated
  // --profile or through the "profiles" of the sidecar merge writes.
  const std::string text = read_input(kResults + "moe_2stages_profile.csv");
  const size_t eol = text.find('\n');
  const std::string header = text.substr(0, eol + 1);
  std::string part[2] = {header, header};
  size_t n = 0;
  for (size_t at = eol + 1; at < text.size();) {
    const size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end == std::string::npos ? std::string::npos : end - at + 1);
    if (line.find(",3,7168,") != std::string::npos || line.find(",6144,7168,") != std::string::npos) part[0] += line;
    else part[1] += line;
    ++n;
    at = end == std::string::npos ? text.size() : end + 1;
  }
  ASSERT_GT(n, 2u);
  const std::string pa = (dir / "shard_1.profile.csv").string(), pb = (dir / "shard_2.profile.csv").string();
  write_file_atomic(pa, part[0]);
  write_file_atomic(pb, part[1]);
  o.profiles = {pa};
  Report one = build_report(o);
  ASSERT_TRUE(one.agreement);
  EXPECT_EQ(one.agreement->within, 2u);  // 3 and 6144 tokens only
  o.profiles = {pa, pb};
  Report both = build_report(o);
  ASSERT_TRUE(both.agreement);
  EXPECT_EQ(both.agreement->within, 7u);
  EXPECT_NEAR(both.agreement->min, r.agreement->min, 1e-12);
  o.profiles.clear();
  write_file_atomic(o.provenance, nlohmann::json{{"status", "merged"}, {"profiles", {pa, pb}}}.dump());
  Report merged = build_report(o);
  ASSERT_TRUE(merged.agreement);
  EXPECT_EQ(merged.agreement->within, 7u);
  EXPECT_NE(merged.tuned->profile.find(", "), std::string::npos) << merged.tuned->profile;
  fs::remove_all(dir);
}

// Fused MoE reads the weights of the experts its tokens reach. A cktune results row records what its run's routing
// moved (bw x time, CandidateResult::min_bytes); the floor counts those bytes, and the expected number of experts
// only where the row does not say (no cktune version: not a cktune results row).
TEST(Report, MoeFloorCountsTheExpertsTheAfterRunsRoutingReached) {
  fs::path dir = fs::temp_directory_path() / "cktune_report_moe_floor_test";
  fs::create_directories(dir);
  const ProblemKey three{Family::Moe2Stages,
                         {"3", "7168", "256", "256", "8", "ActivationType.Silu", "torch.bfloat16", "torch.float8_e4m3fn",
                          "torch.float8_e4m3fn", "QuantType.per_1x128", "1", "0"}};
  // The fixture's 3-token dispatch row (46.16 us) written as a run whose routing reached 24 experts (23.27 expected).
  const double bytes24 = three.min_bytes(24);
  const std::string bw24 = fmt::format("{:.6f}", bytes24 / 46.16e-6 / 1e9);
  auto write_after = [&](const std::string& version) {
    const std::string text = read_input(kResults + "moe_2stages_after.csv");
    std::string out;
    size_t at = 0;
    for (size_t nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1) {
      std::string line = text.substr(at, nl - at);
      if (line.rfind("moe_2stages,sm_90,132,3,", 0) == 0 && line.find(",dispatch,") != std::string::npos) {
        line = std::regex_replace(line, std::regex(",2775\\.58,"), "," + bw24 + ",");
        line = std::regex_replace(line, std::regex(",0\\.1\\.0,"), "," + version + ",");
      }
      out += line + "\n";
    }
    const std::string path = (dir / ("after_" + (version.empty() ? std::string("none") : version) + ".csv")).string();
    write_file_atomic(path, out);
    return path;
  };
  ReportOptions o;
  o.after = write_after("0.1.0");
  Report r = build_report(o);
  ASSERT_TRUE(r.floors.peaks) << r.floors.missing;
  EXPECT_DOUBLE_EQ(r.floors.peaks->memory_tbps, 4.8);
  const FloorShape* x = r.floors.find(three);
  ASSERT_NE(x, nullptr);
  EXPECT_TRUE(x->floor.memory_bound());
  EXPECT_NEAR(x->bytes, bytes24, 1e-6 * bytes24);
  EXPECT_NEAR(x->floor.us(), bytes24 / 4.8e6, 1e-6 * bytes24 / 4.8e6);
  EXPECT_NE(render_report_markdown(r).find("the floor counts those the after run's routing reached"), std::string::npos);
  // Not a cktune results row: the key's expectation.
  o.after = write_after("");
  const Report ry = build_report(o);
  const FloorShape* y = ry.floors.find(three);
  ASSERT_NE(y, nullptr);
  EXPECT_DOUBLE_EQ(y->bytes, three.min_bytes());
  fs::remove_all(dir);
}

TEST(Report, WithoutTunedTableSaysSoAndAiterInputsWork) {
  ReportOptions o;
  o.before = kAiter + "test_moe_2stage_before.log";
  o.after = kAiter + "test_moe_2stage_after.log";
  Report r = build_report(o);
  std::string md = render_report_markdown(r);
  EXPECT_EQ(md.find("export AITER_CONFIG_FMOE"), std::string::npos);
  EXPECT_NE(md.find("No tuned table was given"), std::string::npos);
  EXPECT_NE(md.find("aiter-markdown:test_moe_2stage"), std::string::npos);
  // Op-test tables carry no protocol, and the settings say so; two logs are two separate runs.
  EXPECT_NE(md.find("no protocol recorded in the inputs"), std::string::npos);
  EXPECT_NE(md.find("runs: two separate runs"), std::string::npos);
  EXPECT_EQ(count(render_report_html(r), "<svg"), 3u);  // the overview and one chart per MoE configuration (2)
}

TEST(Report, WritesBothFilesAtomicallyAndFailsCleanly) {
  fs::path dir = fs::temp_directory_path() / "cktune_report_test";
  fs::remove_all(dir);
  ReportOptions o = options();
  o.markdown_path = (dir / "report.md").string();
  o.html_path = (dir / "report.html").string();
  std::string md = run_report(o);
  EXPECT_EQ(read_input(o.markdown_path), md);
  EXPECT_NE(read_input(o.html_path).find("<svg"), std::string::npos);
  EXPECT_NE(md.find(fs::absolute(o.html_path).string()), std::string::npos);

  ReportOptions bad = options();
  bad.provenance = kResults + "a8w8_blockscale_before.csv";  // not JSON
  bad.markdown_path = (dir / "bad.md").string();
  EXPECT_THROW(run_report(bad), InputError);
  EXPECT_FALSE(file_exists(bad.markdown_path));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cktune
