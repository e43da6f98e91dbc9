#include "cktune/merge/merge.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cktune/aiter/instances.hpp"
#include "cktune/core/error.hpp"
#include "cktune/formats/csv.hpp"

namespace cktune {
namespace {

const std::string kBlockscaleHeader = "gfx,cu_num,M,N,K,libtype,kernelId,splitK,us,kernelName,tflops,bw,errRatio\n";
const std::string kMoeHeader =
    "gfx,cu_num,token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,q_type,use_g1u1,"
    "doweight_stage1,block_m,ksplit,us1,kernelName1,err1,us2,kernelName2,err2,us,run_1stage,xbf16,flat,tflops,bw\n";
const std::string kMoeKey =
    "7168,256,257,8,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fnuz,torch.float8_e4m3fnuz,"
    "QuantType.per_1x128,1,0";

Table table(const std::string& name, const std::string& text) {
  CsvOptions lenient;
  lenient.min_row_cells = 1;
  return make_table(parse_csv(text, name, lenient));
}

// A blockscale row: M, N, K, kernel name and us vary. libtype asm: the names are placeholders, and
// AITER's asm kernels are not among the lists --check holds (ck rows are checked: AiterKernels tests below).
std::string bs_row(int m, int n, int k, const std::string& us, const std::string& kernel = "k",
                   const std::string& err = "0.0", const std::string& dev = "gfx942,304") {
  return fmt::format("{},{},{},{},asm,1,0,{},{},1.0,2.0,{}\n", dev, m, n, k, us, kernel, err);
}

// A blockscale row naming a kernel by (libtype, kernelId, kernelName).
std::string kernel_row(const std::string& dev, int m, const std::string& libtype, int id, const std::string& name) {
  return fmt::format("{},{},128,256,{},{},0,5.0,{},1.0,2.0,0.0\n", dev, m, libtype, id, name);
}

std::string moe_row(int token, const std::string& us, const std::string& err1 = "0.0%",
                    const std::string& dev = "gfx942,304") {
  return fmt::format("{},{},{},32,0,1.0,s1,{},2.0,s2,0.0%,{},0,0,0,1.0,2.0\n", dev, token, kMoeKey, err1, us);
}

size_t count_kind(const MergeReport& r, FindingKind k) {
  return static_cast<size_t>(
      std::count_if(r.findings.begin(), r.findings.end(), [&](const Finding& f) { return f.kind == k; }));
}

TEST(Merge, DuplicateKeepsTheLowestUsAndReportsEveryEntry) {
  std::vector<Table> in = {
      table("a/a8w8_blockscale_tuned_gemm.csv", kBlockscaleHeader + bs_row(1, 128, 256, "5.0", "slow") +
                                                    bs_row(2, 128, 256, "3.0")),
      table("b/a8w8_blockscale_tuned_gemm_x.csv", kBlockscaleHeader + bs_row(1, 128, 256, "4.5", "fast")),
  };
  MergeResult r = merge_tables(in, {});
  ASSERT_EQ(r.table.rows.size(), 2u);
  EXPECT_EQ(r.report.rows_in, 3u);
  EXPECT_EQ(r.report.rows_out, 2u);
  EXPECT_EQ(r.report.family, Family::A8W8Blockscale);
  ASSERT_EQ(r.report.collisions.size(), 1u);
  const Collision& c = r.report.collisions[0];
  EXPECT_EQ(c.key.text(), "gfx942,304,1,128,256");
  ASSERT_EQ(c.entries.size(), 2u);
  EXPECT_EQ(c.entries[0].file, "a/a8w8_blockscale_tuned_gemm.csv");
  EXPECT_EQ(c.entries[0].line, 2u);
  EXPECT_EQ(c.entries[0].us, "5.0");
  EXPECT_EQ(c.winner, 1u);
  auto kernel = *r.table.column("kernelName");
  EXPECT_EQ(r.table.rows[0][kernel], "fast");
  EXPECT_EQ(count_kind(r.report, FindingKind::Duplicate), 1u);
  EXPECT_EQ(r.table.header.size(), 13u);
}

TEST(Merge, TiesKeepTheRowSeenFirst) {
  // Equal us (numerically: "4.5" and "4.50"): the earlier input file wins, and within a file the earlier line.
  std::vector<Table> in = {
      table("a8w8_blockscale_tuned_gemm_1.csv", kBlockscaleHeader + bs_row(1, 128, 256, "4.5", "first")),
      table("a8w8_blockscale_tuned_gemm_2.csv", kBlockscaleHeader + bs_row(1, 128, 256, "4.50", "second")),
  };
  MergeResult r = merge_tables(in, {});
  EXPECT_EQ(r.table.rows[0][*r.table.column("kernelName")], "first");
  EXPECT_EQ(r.report.collisions[0].winner, 0u);
  std::swap(in[0], in[1]);
  EXPECT_EQ(merge_tables(in, {}).table.rows[0][*r.table.column("kernelName")], "second");
  std::vector<Table> one = {table("a8w8_blockscale_tuned_gemm.csv", kBlockscaleHeader + bs_row(1, 128, 256, "2.0", "early") +
                                                                        bs_row(1, 128, 256, "2.0", "late"))};
  EXPECT_EQ(merge_tables(one, {}).table.rows[0][*r.table.column("kernelName")], "early");
}

TEST(Merge, UnusableTimesNeverWin) {
  for (std::string bad : {"-1", "0.0", "inf", "nan", "x"}) {
    std::vector<Table> in = {table("a8w8_blockscale_tuned_gemm.csv", kBlockscaleHeader + bs_row(1, 128, 256, bad, "bad") +
                                                                          bs_row(1, 128, 256, "9.0", "good"))};
    MergeOptions drop;
    drop.drop_invalid = true;
    MergeResult r = merge_tables(in, drop);
    EXPECT_EQ(r.table.rows[0][*r.table.column("kernelName")], "good") << bad;
    EXPECT_EQ(count_kind(r.report, FindingKind::InvalidUs), 1u) << bad;
  }
}

TEST(Merge, AnUnusableTimeFailsTheMergeNamingEveryRow) {
  // Before, such rows were written (or silently lost their collision) and merge exited 0.
  for (std::string bad : {"-1", "0", "0.0", "inf", "-inf", "nan", "x", ""}) {
    std::vector<Table> in = {
        table("a8w8_blockscale_tuned_gemm.csv", kBlockscaleHeader + bs_row(1, 128, 256, "9.0") + bs_row(2, 128, 256, bad)),
        table("b/a8w8_blockscale_tuned_gemm.csv", kBlockscaleHeader + bs_row(3, 128, 256, bad) + bs_row(1, 128, 256, bad))};
    try {
      merge_tables(in, {});
      ADD_FAILURE() << "merged a row with us '" << bad << "'";
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "a8w8_blockscale_tuned_gemm.csv") << bad;
      EXPECT_EQ(e.line(), 3u) << bad;
      const std::string what = e.what();
      EXPECT_NE(what.find("3 row(s)"), std::string::npos) << what;
      EXPECT_NE(what.find("b/a8w8_blockscale_tuned_gemm.csv:2, b/a8w8_blockscale_tuned_gemm.csv:3"), std::string::npos)
          << what;
      EXPECT_NE(e.hint().find("--drop-invalid"), std::string::npos);
    }
  }
}

TEST(Merge, DropInvalidLeavesTheRowsOutAndSaysWhich) {
  std::vector<Table> in = {table("a8w8_blockscale_tuned_gemm.csv", kBlockscaleHeader + bs_row(1, 128, 256, "9.0") +
                                                                        bs_row(2, 128, 256, "nan") +
                                                                        bs_row(3, 128, 256, "-1"))};
  MergeOptions o;
  o.drop_invalid = true;
  MergeResult r = merge_tables(in, o);
  ASSERT_EQ(r.table.rows.size(), 1u);
  EXPECT_EQ(r.report.rows_dropped, 2u);
  EXPECT_EQ(r.report.rows_out, 1u);
  EXPECT_EQ(r.report.count(Severity::Error), 0u);
  size_t dropped = 0;
  for (const auto& f : r.report.findings)
    if (f.kind == FindingKind::InvalidUs) {
      ++dropped;
      EXPECT_EQ(f.severity, Severity::Warning);
      EXPECT_NE(f.message.find("dropped"), std::string::npos);
      EXPECT_TRUE(f.line == 3 || f.line == 4) << f.line;
    }
  EXPECT_EQ(dropped, 2u);
  EXPECT_EQ(report_json(r.report, false, false)["rows_dropped"], 2);
}

TEST(Merge, ErrorAboveTheCheckLimitIsOnlyAWarningInAMerge) {
  std::vector<Table> in = {
      table("a8w8_blockscale_tuned_gemm.csv", kBlockscaleHeader + bs_row(1, 128, 256, "9.0", "k", "0.5"))};
  MergeResult r = merge_tables(in, {});
  EXPECT_EQ(r.table.rows.size(), 1u);
  EXPECT_EQ(r.report.count(Severity::Error), 0u);
  EXPECT_EQ(count_kind(r.report, FindingKind::ErrTooHigh), 1u);
  EXPECT_FALSE(check_tables(in, {}).passed(false));  // --check still fails on it
}

TEST(Merge, WideHeaderIsLinear) {
  // 100k extra columns, two inputs with different column sets (the path that builds a union header):
  // per-cell linear column lookups took 451 s for this; it must take well under a few seconds.
  constexpr int kExtra = 100000;
  std::string extra_a, extra_b, cells;
  for (int i = 0; i < kExtra; ++i) {
    extra_a += fmt::format(",x{}", i);
    extra_b += fmt::format(",x{}", kExtra - 1 - i);  // same names, reversed order
    cells += ",c";
  }
  const std::string head = kBlockscaleHeader.substr(0, kBlockscaleHeader.size() - 1);
  auto rows = [&](int m0) {
    std::string out;
    for (int m = m0; m < m0 + 5; ++m) {
      std::string r = bs_row(m, 128, 256, "1.0");
      out += r.substr(0, r.size() - 1) + cells + "\n";
    }
    return out;
  };
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<Table> in = {table("a8w8_blockscale_tuned_gemm.csv", head + extra_a + "\n" + rows(1)),
                           table("b/a8w8_blockscale_tuned_gemm.csv", head + ",_tag" + extra_b + "\n" +
                                                                          [&] {
                                                                            std::string out;
                                                                            for (int m = 6; m < 11; ++m) {
                                                                              std::string r = bs_row(m, 128, 256, "1.0");
                                                                              out += r.substr(0, r.size() - 1) + ",t" + cells + "\n";
                                                                            }
                                                                            return out;
                                                                          }())};
  MergeResult r = merge_tables(in, {});
  std::string text = render_csv(r.table);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.table.header.size(), 13u + kExtra + 1);
  EXPECT_EQ(r.table.rows.size(), 10u);
  EXPECT_LT(seconds, 5.0);
  EXPECT_EQ(check_tables(in, {}).rows_out, 10u);
}

TEST(Merge, GemmOutputIsSortedByNThenKThenM) {
  std::vector<Table> in = {table("a8w8_blockscale_tuned_gemm.csv",
                                 kBlockscaleHeader + bs_row(32, 4096, 512, "1.0") + bs_row(16, 4096, 512, "1.0") +
                                     bs_row(1, 1024, 7168, "1.0") + bs_row(1, 4096, 256, "1.0") +
                                     bs_row(8, 1024, 7168, "1.0", "k", "0.0", "gfx950,256"))};
  MergeResult r = merge_tables(in, {});
  std::vector<std::string> order;
  for (const auto& row : r.table.rows) order.push_back(fmt::format("{}:{}:{}:{}", row[0], row[3], row[4], row[2]));
  EXPECT_EQ(order, (std::vector<std::string>{"gfx942:1024:7168:1", "gfx942:4096:256:1", "gfx942:4096:512:16",
                                             "gfx942:4096:512:32", "gfx950:1024:7168:8"}));
  MergeOptions keep;
  keep.keep_order = true;
  EXPECT_EQ(merge_tables(in, keep).table.rows[0][2], "32");
}

TEST(Merge, MixedDevicesAreKeptAndReported) {
  std::vector<Table> in = {
      table("a8w8_blockscale_tuned_gemm.csv", kBlockscaleHeader + bs_row(1, 128, 256, "1.0")),
      table("a8w8_blockscale_tuned_gemm_b.csv", kBlockscaleHeader + bs_row(1, 128, 256, "1.0", "k", "0.0", "gfx950,256")),
  };
  MergeResult r = merge_tables(in, {});
  EXPECT_EQ(r.table.rows.size(), 2u);
  EXPECT_TRUE(r.report.collisions.empty());
  EXPECT_EQ(r.report.devices.size(), 2u);
  EXPECT_EQ(count_kind(r.report, FindingKind::MixedDevices), 1u);
  EXPECT_TRUE(r.report.passed(false));
  EXPECT_FALSE(r.report.passed(true));
}

TEST(Merge, MixedFamiliesOrKindsAreRefused) {
  std::vector<Table> in = {
      table("a8w8_blockscale_tuned_gemm.csv", kBlockscaleHeader + bs_row(1, 128, 256, "1.0")),
      table("a8w8_blockscale_bpreshuffle_tuned_gemm.csv", kBlockscaleHeader + bs_row(1, 128, 256, "1.0")),
  };
  try {
    merge_tables(in, {});
    FAIL();
  } catch (const Error& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("a8w8_blockscale_tuned_gemm.csv (a8w8_blockscale tuned)"), std::string::npos) << what;
    EXPECT_NE(what.find("(a8w8_blockscale_bpreshuffle tuned)"), std::string::npos) << what;
  }
  MergeReport check = check_tables(in, {});
  EXPECT_EQ(count_kind(check, FindingKind::MixedFamilies), 1u);
  EXPECT_TRUE(check.collisions.empty());  // different families never collide
  EXPECT_FALSE(check.passed(false));

  std::vector<Table> kinds = {in[0], table("a8w8_blockscale_untuned_gemm.csv", "M,N,K\n1,128,256\n")};
  EXPECT_THROW(merge_tables(kinds, {}), Error);
  EXPECT_EQ(count_kind(check_tables(kinds, {}), FindingKind::MixedKinds), 1u);
}

TEST(Merge, AmbiguousOrUnknownTablesAreRefusedWithAHint) {
  std::vector<Table> amb = {table("out.csv", kBlockscaleHeader + bs_row(1, 128, 256, "1.0"))};
  try {
    merge_tables(amb, {});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "out.csv");
    EXPECT_EQ(e.line(), 1u);
    EXPECT_NE(std::string(e.what()).find("a8w8_blockscale|a8w8_blockscale_bpreshuffle"), std::string::npos);
    EXPECT_NE(e.hint().find("--family"), std::string::npos);
  }
  EXPECT_EQ(count_kind(check_tables(amb, {}), FindingKind::AmbiguousFamily), 1u);
  std::vector<Table> forced = {make_table(parse_csv(kBlockscaleHeader + bs_row(1, 128, 256, "1.0"), "out.csv"),
                                          Family::A8W8Blockscale)};
  MergeOptions with_family;
  with_family.family = Family::A8W8Blockscale;
  EXPECT_EQ(merge_tables(forced, with_family).report.family, Family::A8W8Blockscale);
  // A file name promising a family whose columns the header lacks is refused, at the header line.
  std::vector<Table> misnamed = {table("a8w8_tuned_gemm.csv", kBlockscaleHeader + bs_row(1, 128, 256, "1.0"))};
  try {
    merge_tables(misnamed, {});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 1u);
    EXPECT_NE(e.message().find("no column q_dtype_w"), std::string::npos) << e.message();
  }

  std::vector<Table> unknown = {table("x.csv", "gfx,b,m,n,k,us\ngfx950,2,1,1024,4096,7.8\n")};
  EXPECT_THROW(merge_tables(unknown, {}), Error);
  MergeReport r = check_tables(unknown, {});
  EXPECT_EQ(count_kind(r, FindingKind::UnknownFamily), 1u);
  EXPECT_FALSE(r.passed(false));
}

TEST(Merge, LegacyAndCurrentMoeTablesMergeIntoTheCurrentSchema) {
  // Old schema: no gfx, xbf16, flat; trailing _tag (rows end with ',').
  const std::string legacy_header =
      "cu_num,token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,q_type,use_g1u1,"
      "doweight_stage1,block_m,ksplit,us1,kernelName1,err1,us2,kernelName2,err2,us,run_1stage,tflops,bw,_tag\n";
  const std::string legacy_row = fmt::format("304,16,{},32,0,1.0,old1,0.0%,2.0,old2,0.0%,3.5,0,1.0,2.0,\n", kMoeKey);
  std::vector<Table> in = {
      table("tuned_fmoe.csv", legacy_header + legacy_row),
      table("model_tuned_fmoe.csv", kMoeHeader + moe_row(16, "3.0") + moe_row(1, "1.0")),
  };
  EXPECT_TRUE(in[0].gfx_inferred);
  MergeResult r = merge_tables(in, {});
  std::vector<std::string> want(spec(Family::Moe2Stages).tuned.begin(), spec(Family::Moe2Stages).tuned.end());
  want.push_back("_tag");
  EXPECT_EQ(r.table.header, want);
  ASSERT_EQ(r.report.collisions.size(), 1u);  // the legacy row's gfx is inferred from cu_num 304
  EXPECT_EQ(r.report.collisions[0].key.gfx, "gfx942");
  ASSERT_EQ(r.table.rows.size(), 2u);
  // MoE keeps first-seen order; the token-16 key first appeared in the legacy file, the winner is the new row.
  EXPECT_EQ(r.table.rows[0][2], "16");
  EXPECT_EQ(r.table.rows[0][*r.table.column("us")], "3.0");
  EXPECT_EQ(r.table.rows[1][2], "1");
  // Filling a legacy row: gfx inferred, xbf16/flat 0.
  std::vector<Table> only_legacy = {in[0], table("tuned_fmoe_2.csv", kMoeHeader + moe_row(2, "1.0"))};
  MergeResult l = merge_tables(only_legacy, {});
  EXPECT_EQ(l.table.rows[0][0], "gfx942");
  EXPECT_EQ(l.table.rows[0][*l.table.column("xbf16")], "0");
  EXPECT_EQ(l.table.rows[0][*l.table.column("flat")], "0");
  EXPECT_EQ(l.table.rows[1][*l.table.column("_tag")], "");
}

TEST(Merge, UnknownLegacyCuNumCannotBeGivenAGfxColumn) {
  const std::string legacy_header =
      "cu_num,token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,q_type,use_g1u1,"
      "doweight_stage1,block_m,ksplit,us1,kernelName1,err1,us2,kernelName2,err2,us,run_1stage,tflops,bw\n";
  std::vector<Table> in = {
      table("tuned_fmoe.csv", legacy_header + fmt::format("120,16,{},32,0,1.0,a,0.0%,2.0,b,0.0%,3.5,0,1.0,2.0\n", kMoeKey)),
      table("tuned_fmoe_new.csv", kMoeHeader + moe_row(1, "1.0")),
  };
  EXPECT_EQ(count_kind(check_tables(in, {}), FindingKind::UnknownGfx), 1u);
  try {
    merge_tables(in, {});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "tuned_fmoe.csv");
    EXPECT_EQ(e.line(), 2u);
  }
}

TEST(Merge, SameColumnsInAnotherOrderKeepTheFirstInputsOrder) {
  const std::string a = "gfx,cu_num,B,M,N,K,kernelId,splitK,us,kernelName,errRatio,tflops,bw\n";
  const std::string b = "gfx,cu_num,B,M,N,K,kernelId,splitK,us,kernelName,tflops,bw,errRatio\n";
  std::vector<Table> in = {table("bf16_tuned_batched_gemm.csv", a + "gfx942,304,16,32,1280,8192,1,0,5.0,k,0.0,1.0,2.0\n"),
                           table("bf16_tuned_batched_gemm_2.csv", b + "gfx942,304,16,64,1280,8192,1,0,5.0,k,1.0,2.0,0.0\n")};
  MergeResult r = merge_tables(in, {});
  EXPECT_EQ(render_csv(r.table), a + "gfx942,304,16,32,1280,8192,1,0,5.0,k,0.0,1.0,2.0\n" +
                                     "gfx942,304,16,64,1280,8192,1,0,5.0,k,0.0,1.0,2.0\n");
}

TEST(Merge, UntunedTablesMergeOnTheirKeyKeepingTheFirstRow) {
  std::vector<Table> in = {table("a8w8_untuned_gemm.csv", "M,N,K,q_dtype_w\n1,2,3,torch.int8\n1,2,3,torch.float8_e4m3fnuz\n"),
                           table("a8w8_untuned_gemm_b.csv", "M, N, K, q_dtype_w\n1, 2, 3, torch.int8\t\n")};
  MergeResult r = merge_tables(in, {});
  EXPECT_EQ(render_csv(r.table), "M,N,K,q_dtype_w\n1,2,3,torch.float8_e4m3fnuz\n1,2,3,torch.int8\n");
  ASSERT_EQ(r.report.collisions.size(), 1u);
  EXPECT_EQ(r.report.collisions[0].winner, 0u);
}

TEST(Merge, CheckFindsInvalidRowsAndUnreachableTokens) {
  std::vector<Table> gemm = {table("a8w8_blockscale_tuned_gemm.csv",
                                   kBlockscaleHeader + bs_row(1, 128, 256, "1.0", "k", "0.06") +
                                       bs_row(2, 128, 256, "-1") + bs_row(4, 128, 256, "1.0", "k", "0.05"))};
  MergeReport g = check_tables(gemm, {});
  EXPECT_EQ(count_kind(g, FindingKind::ErrTooHigh), 1u);
  EXPECT_EQ(count_kind(g, FindingKind::InvalidUs), 1u);
  auto it = std::find_if(g.findings.begin(), g.findings.end(), [](const Finding& f) { return f.kind == FindingKind::InvalidUs; });
  EXPECT_EQ(it->line, 3u);
  EXPECT_EQ(it->column, 30u);  // the us cell of bs_row (libtype asm)
  MergeOptions loose;
  loose.max_err_ratio = 0.1;
  EXPECT_EQ(count_kind(check_tables(gemm, loose), FindingKind::ErrTooHigh), 0u);

  std::vector<Table> moe = {table("tuned_fmoe.csv", kMoeHeader + moe_row(56, "1.0") + moe_row(64, "1.0", "18.2%") +
                                                        moe_row(32768, "1.0") + moe_row(65536, "1.0"))};
  MergeReport m = check_tables(moe, {});
  EXPECT_EQ(count_kind(m, FindingKind::Unreachable), 2u);  // 56 -> 64, 65536 -> 32768
  EXPECT_EQ(count_kind(m, FindingKind::ErrTooHigh), 1u);   // 18.2% > 10%
  MergeOptions moe_loose;
  moe_loose.max_moe_err = 0.2;
  MergeReport m2 = check_tables(moe, moe_loose);
  EXPECT_TRUE(m2.passed(false));   // unreachable rows are warnings
  EXPECT_FALSE(m2.passed(true));   // unless --strict
}

TEST(Merge, CheckReportsAMissingKeyColumnNamedByTheFileName) {
  std::vector<Table> in = {table("a8w8_tuned_gemm.csv", kBlockscaleHeader + bs_row(1, 128, 256, "1.0"))};
  MergeReport r = check_tables(in, {});
  EXPECT_EQ(count_kind(r, FindingKind::MissingColumns), 1u);
  EXPECT_FALSE(r.passed(false));
}

TEST(Merge, JsonReportIsComplete) {
  std::vector<Table> in = {
      table("a8w8_blockscale_tuned_gemm.csv", kBlockscaleHeader + bs_row(1, 128, 256, "5.0")),
      table("a8w8_blockscale_tuned_gemm_b.csv", kBlockscaleHeader + bs_row(1, 128, 256, "4.0")),
  };
  MergeReport r = check_tables(in, {});
  nlohmann::json j = nlohmann::json::parse(report_json(r, true, false).dump());
  EXPECT_EQ(j["command"], "check");
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["family"], "a8w8_blockscale");
  EXPECT_EQ(j["rows_in"], 2);
  EXPECT_EQ(j["rows_out"], 1);
  ASSERT_EQ(j["collisions"].size(), 1u);
  EXPECT_EQ(j["collisions"][0]["key"], "gfx942,304,1,128,256");
  EXPECT_EQ(j["collisions"][0]["winner"]["file"], "a8w8_blockscale_tuned_gemm_b.csv");
  EXPECT_EQ(j["collisions"][0]["entries"][0]["us"], "5.0");
  EXPECT_EQ(j["findings"][0]["kind"], "duplicate");
  EXPECT_EQ(j["counts"]["error"], 1);
  auto lines = report_lines(r);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].first, Severity::Error);
  EXPECT_NE(lines[0].second.find("keeps a8w8_blockscale_tuned_gemm_b.csv:2"), std::string::npos) << lines[0].second;
}

// The merged table's sidecar: the family, each input with its own provenance (null without one), the union of the
// inputs' devices and their profiles, and gfx / cu_num only when every merged row is of one device.
TEST(Merge, ProvenanceOfAMergedTableCarriesTheInputs) {
  std::vector<Table> in = {
      table("a8w8_blockscale_tuned_gemm_1.csv", kBlockscaleHeader + bs_row(1, 128, 256, "5.0")),
      table("a8w8_blockscale_tuned_gemm_2.csv", kBlockscaleHeader + bs_row(2, 128, 256, "4.0")),
      table("a8w8_blockscale_tuned_gemm_3.csv", kBlockscaleHeader + bs_row(4, 128, 256, "4.0")),
  };
  MergeOptions o;
  MergeResult m = merge_tables(in, o);
  using nlohmann::json;
  const json p1 = {{"family", "a8w8_blockscale"}, {"profile", "/t/p1.csv"}, {"devices", {{{"uuid", "GPU-a"}}}}};
  const json p3 = {{"family", "a8w8_blockscale"},
                   {"profiles", {"/t/p1.csv", "/t/p3.csv"}},
                   {"devices", {{{"uuid", "GPU-a"}}, {{"uuid", "GPU-b"}}}}};
  MergedProvenanceContext ctx{"/t/merged.csv", {"/t/shard_1.csv", "/t/shard_2.csv", "/t/shard_3.csv"}, "cktune merge",
                              "2026-12-01T08:00:00Z", "0.1.0"};
  json j = merged_provenance(m.report, {p1, nullptr, p3}, ctx);
  EXPECT_EQ(j["status"], "merged");
  EXPECT_EQ(j["family"], "a8w8_blockscale");
  EXPECT_EQ(j["table"], "/t/merged.csv");
  EXPECT_EQ(j["rows"], 3);
  EXPECT_EQ(j["gfx"], "gfx942");
  EXPECT_EQ(j["cu_num"], 304);
  EXPECT_EQ(j["devices"], json({{{"uuid", "GPU-a"}}, {{"uuid", "GPU-b"}}}));
  EXPECT_EQ(j["profiles"], json({"/t/p1.csv", "/t/p3.csv"}));
  EXPECT_FALSE(j.contains("profile"));  // several: only the list
  ASSERT_EQ(j["inputs"].size(), 3u);
  EXPECT_EQ(j["inputs"][1]["table"], "/t/shard_2.csv");
  EXPECT_TRUE(j["inputs"][1]["provenance"].is_null());
  EXPECT_EQ(j["inputs"][2]["provenance"], p3);

  // One profile is also written as tune writes it; rows of two devices leave gfx / cu_num out.
  in[1] = table("a8w8_blockscale_tuned_gemm_2.csv", kBlockscaleHeader + bs_row(2, 128, 256, "4.0", "k", "0.0", "gfx942,80"));
  m = merge_tables(in, o);
  j = merged_provenance(m.report, {p1, nullptr, nullptr}, ctx);
  EXPECT_EQ(j["profile"], "/t/p1.csv");
  EXPECT_FALSE(j.contains("gfx"));
  EXPECT_FALSE(j.contains("cu_num"));
}

TEST(Merge, RealAiterTablesMergeWithoutDuplicateKeys) {
  const std::string dir = std::string(CKTUNE_TEST_DATA) + "/aiter-configs";
  std::vector<Table> in = {read_table(dir + "/a8w8_blockscale_tuned_gemm.csv"),
                           read_table(dir + "/model_configs/a8w8_blockscale_tuned_gemm_ds_v3.csv"),
                           read_table(dir + "/model_configs/a8w8_blockscale_tuned_gemm_qwen3_235b.csv")};
  MergeResult r = merge_tables(in, {});
  Table merged = make_table(parse_csv(render_csv(r.table), "a8w8_blockscale_tuned_gemm.csv"));
  std::set<TableKey> keys(merged.keys.begin(), merged.keys.end());
  EXPECT_EQ(keys.size(), merged.keys.size());
  EXPECT_EQ(r.report.rows_in - r.report.rows_out,
            [&] {
              size_t extra = 0;
              for (const auto& c : r.report.collisions) extra += c.entries.size() - 1;
              return extra;
            }());
  EXPECT_EQ(r.table.header, in[0].csv.header);
  EXPECT_TRUE(check_tables({merged}, {}).collisions.empty());

  // AITER's own tuned_fmoe.csv has a token-56 row that the runtime can never look up.
  MergeReport moe = check_tables({read_table(dir + "/tuned_fmoe.csv")}, {});
  EXPECT_EQ(count_kind(moe, FindingKind::Unreachable), 1u);
  EXPECT_EQ(count_kind(moe, FindingKind::InferredGfx), 1u);
}

// AITER loads only its own CK / CK-tile kernels (docs/cli/merge.md, "AITER kernels").
TEST(MergeCheck, AiterKernels) {
  const std::string ck1 = aiter::ck_blockscale_name(aiter::ck_blockscale_instances()[1]);
  const std::string tile950 = aiter::cktile_blockscale_name(aiter::cktile_blockscale_instances("gfx950")[0]);
  // Real names under their ids: clean.
  std::vector<Table> good = {table("a8w8_blockscale_tuned_gemm.csv",
                                   kBlockscaleHeader + kernel_row("gfx942,304", 1, "ck", 1, ck1) +
                                       kernel_row("gfx950,256", 2, "ck", 1, ck1) +
                                       kernel_row("gfx950,256", 3, "cktile", 0, tile950) +
                                       kernel_row("sm_90,132", 4, "cktune", 3, "cktune_wgmma_128x128") +
                                       kernel_row("cpu,16", 5, "cktune_cpu", 0, "tiled_m4n4"))};
  MergeReport ok = check_tables(good, {});
  EXPECT_TRUE(ok.passed(false));
  for (auto k : {FindingKind::UnknownKernel, FindingKind::NotAiterKernel, FindingKind::StaleKernelId,
                 FindingKind::UncheckedKernels})
    EXPECT_EQ(count_kind(ok, k), 0u) << finding_kind_name(k);

  // A planted wrong name, a wrong id, gfx950's CK-tile kernel on gfx942, cktune's own kernels on gfx9xx.
  std::string planted = ck1;
  planted.replace(planted.find("intrawave"), 9, "interwave");
  std::vector<Table> bad = {table("a8w8_blockscale_tuned_gemm.csv",
                                  kBlockscaleHeader + kernel_row("gfx942,304", 1, "ck", 1, planted) +
                                      kernel_row("gfx942,304", 2, "ck", 77, "a8w8_blockscale_made_up") +
                                      kernel_row("gfx942,304", 3, "cktile", 0, tile950) +
                                      kernel_row("gfx942,304", 4, "cktune", 3, "cktune_x") +
                                      kernel_row("gfx950,256", 5, "blaslt", 0, "blaslt_heuristic_0") +
                                      kernel_row("gfx950,256", 6, "ck", 0, ck1))};
  MergeReport r = check_tables(bad, {});
  EXPECT_FALSE(r.passed(false));
  std::vector<std::pair<FindingKind, std::uint64_t>> got;
  std::erase_if(r.findings, [](const Finding& f) { return f.kind == FindingKind::MixedDevices; });
  for (const auto& f : r.findings) got.emplace_back(f.kind, f.line);
  std::vector<std::pair<FindingKind, std::uint64_t>> want = {
      {FindingKind::UnknownKernel, 2},  {FindingKind::UnknownKernel, 3},  {FindingKind::UnknownKernel, 4},
      {FindingKind::NotAiterKernel, 5}, {FindingKind::NotAiterKernel, 6}, {FindingKind::StaleKernelId, 7}};
  EXPECT_EQ(got, want);
  for (const auto& f : r.findings) {
    EXPECT_EQ(f.file, "a8w8_blockscale_tuned_gemm.csv");
    EXPECT_GT(f.column, 0u);
  }
  EXPECT_NE(r.findings[0].message.find("is not in AITER's a8w8_blockscale ck list for gfx942"), std::string::npos)
      << r.findings[0].message;
  EXPECT_NE(r.findings[1].message.find("(no such id)"), std::string::npos) << r.findings[1].message;
  EXPECT_NE(r.findings[3].message.find("not an AITER CK kernel: AITER cannot load it"), std::string::npos);
  // The stale id alone is a warning: fails only with --strict.
  std::vector<Table> stale = {table("a8w8_blockscale_tuned_gemm.csv",
                                    kBlockscaleHeader + kernel_row("gfx950,256", 6, "ck", 0, ck1))};
  EXPECT_TRUE(check_tables(stale, {}).passed(false));
  EXPECT_FALSE(check_tables(stale, {}).passed(true));
  // A merge copies such rows and warns.
  MergeResult m = merge_tables(bad, {});
  EXPECT_EQ(m.report.count(Severity::Error), 0u);
  EXPECT_EQ(m.table.rows.size(), 6u);

  // bpreshuffle: its own list; CK-tile rows (no list held) are a note.
  const std::string bp0 = aiter::ck_blockscale_bpreshuffle_name(aiter::ck_blockscale_bpreshuffle_instances()[0]);
  std::vector<Table> bp = {table("a8w8_blockscale_bpreshuffle_tuned_gemm.csv",
                                 kBlockscaleHeader + kernel_row("gfx950,256", 1, "ck", 0, bp0) +
                                     kernel_row("gfx950,256", 2, "cktile", 0, tile950) +
                                     kernel_row("gfx950,256", 3, "ck", 1, ck1))};
  MergeReport b = check_tables(bp, {});
  ASSERT_EQ(b.findings.size(), 2u);
  EXPECT_EQ(b.findings[0].kind, FindingKind::UnknownKernel);
  EXPECT_EQ(b.findings[0].line, 4u);
  EXPECT_EQ(b.findings[1].kind, FindingKind::UncheckedKernels);
  EXPECT_EQ(b.findings[1].severity, Severity::Note);
}

TEST(MergeCheck, AiterMoeKernels) {
  const auto tiles = aiter::moe_ck_blockscale_tiles("gfx942");
  const std::string s1 = aiter::moe_ck_blockscale_name(tiles[0], {});
  const std::string s2 = aiter::moe_ck_blockscale_name(tiles[5], {});
  std::string planted = s1;
  planted.replace(planted.find("256x16x128x256"), 14, "256x16x128x512");
  auto row = [&](int token, const std::string& k1, const std::string& k2) {
    return fmt::format("gfx942,304,{},{},32,0,1.0,{},0.0%,1.0,{},0.0%,2.0,0,0,0,1.0,2.0\n", token, kMoeKey, k1,
                       k2);
  };
  std::vector<Table> in = {table("tuned_fmoe.csv", kMoeHeader + row(16, s1, s2) + row(32, planted, s2) +
                                                       row(64, "_ZN5aiter47fmoe_stage1_x", ""))};
  MergeReport r = check_tables(in, {});
  ASSERT_EQ(r.count(Severity::Error), 1u);
  const Finding& f = *std::find_if(r.findings.begin(), r.findings.end(),
                                   [](const Finding& x) { return x.kind == FindingKind::UnknownKernel; });
  EXPECT_EQ(f.line, 3u);
  EXPECT_NE(f.message.find("kernelName1 '" + planted + "'"), std::string::npos) << f.message;
}

}  // namespace
}  // namespace cktune
