#include "cktune/formats/table.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "cktune/core/error.hpp"
#include "cktune/core/io.hpp"
#include "cktune/formats/tuned_table.hpp"

namespace cktune {
namespace {

namespace fs = std::filesystem;

const std::string kConfigs = std::string(CKTUNE_TEST_DATA) + "/aiter-configs";

std::vector<std::string> all_fixture_csvs() {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(kConfigs))
    if (e.is_regular_file() && e.path().extension() == ".csv") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// The documented normalisations, written independently of the parser: CRLF -> LF, spaces and tabs around
// cells stripped, blank lines dropped, a final newline added.
std::string normalise(const std::string& text) {
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? text.size() : nl + 1;
    std::string cleaned, cell;
    bool first = true;
    auto flush = [&] {
      size_t b = cell.find_first_not_of(" \t\r"), e = cell.find_last_not_of(" \t\r");
      cleaned += (first ? "" : ",") + (b == std::string::npos ? std::string() : cell.substr(b, e - b + 1));
      first = false;
      cell.clear();
    };
    for (char ch : line) {
      if (ch == ',') flush();
      else cell += ch;
    }
    flush();
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    out += cleaned + "\n";
  }
  return out;
}

InputError input_error_of(const std::string& text, const std::string& name) {
  try {
    make_table(parse_csv(text, name));
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no InputError for " << name;
  return InputError("", 0, 0, "");
}

TEST(Table, EveryAiterFixtureReadsRoundTripsAndHasKeys) {
  auto files = all_fixture_csvs();
  ASSERT_GE(files.size(), 100u) << "fixtures missing under " << kConfigs;
  size_t tuned = 0, untuned = 0, unknown = 0, ambiguous = 0, padded_files = 0;
  for (const auto& path : files) {
    SCOPED_TRACE(path);
    std::string original = read_input(path);
    Table t = read_table(path);
    std::string rendered = render_csv(t.csv);
    // Short rows (a missing trailing _tag cell) are padded: one more comma per such row.
    std::string expected = normalise(original);
    if (t.csv.short_rows.empty()) {
      EXPECT_EQ(rendered, expected);
      // AITER's tuned tables carry none of the other quirks: their round trip is byte-identical.
      if (t.layout.kind == TableKind::Tuned) {
        EXPECT_EQ(rendered, original);
      }
    } else {
      EXPECT_EQ(rendered.size(), expected.size() + t.csv.short_rows.size());
      ++padded_files;
    }
    (t.layout.kind == TableKind::Tuned ? tuned : untuned)++;
    if (!t.layout.known()) (t.layout.ambiguous() ? ambiguous : unknown)++;
    if (t.layout.name_hint && t.layout.hint_missing.empty()) {
      EXPECT_EQ(t.layout.family, t.layout.name_hint);
    }
    if (!t.has_keys()) continue;
    ASSERT_EQ(t.keys.size(), t.csv.rows.size());
    for (size_t r = 0; r < t.keys.size(); ++r) {
      const TableKey& k = t.keys[r];
      ASSERT_EQ(k.values.size(), t.key_names.size());
      if (t.layout.kind == TableKind::Tuned) {
        EXPECT_GT(k.cu_num, 0);
        EXPECT_EQ(k.gfx.substr(0, 3), "gfx") << k.text();
      }
      // The key's cells are the row's own cells, canonicalised.
      for (size_t i = 0; i < k.values.size(); ++i)
        EXPECT_EQ(k.values[i], *canonical_key_cell(key_cell_type(t.key_names[i]), t.csv.rows[r][t.key_index[i]]));
    }
  }
  EXPECT_GT(tuned, 40u);
  EXPECT_GT(untuned, 40u);
  EXPECT_EQ(unknown, 1u);    // dsv4_batched_gemm_a8w8_blockscale_mxscale_tuned.csv
  EXPECT_EQ(ambiguous, 3u);  // llama405B, llama70B, qwen32B untuned M,N,K lists without a family in the name
  EXPECT_EQ(padded_files, 2u);  // dsv4_fp8fp4_tuned_fmoe.csv, glm5_fp4_tuned_fmoe.csv
}

TEST(Table, LegacyMoeWithoutGfxInfersItFromCuNum) {
  Table t = read_table(kConfigs + "/tuned_fmoe.csv");
  EXPECT_EQ(t.layout.family, Family::Moe2Stages);
  EXPECT_EQ(t.layout.kind, TableKind::Tuned);
  EXPECT_FALSE(t.layout.has_gfx);
  EXPECT_TRUE(t.gfx_inferred);
  EXPECT_EQ(t.layout.missing, (std::vector<std::string>{"gfx", "xbf16", "flat"}));
  EXPECT_EQ(t.layout.extra, (std::vector<std::string>{"_tag"}));
  ASSERT_FALSE(t.keys.empty());
  EXPECT_EQ(t.keys[0].cu_num, 80);
  EXPECT_EQ(t.keys[0].gfx, "gfx942");
  EXPECT_EQ(t.keys[0].values.size(), 12u);
  EXPECT_EQ(t.keys[0].text(),
            "gfx942,80,4,2304,1536,8,2,ActivationType.Gelu,torch.bfloat16,torch.float8_e4m3fnuz,"
            "torch.float8_e4m3fnuz,QuantType.per_Token,1,1");
}

TEST(Table, MoeWithGfxAndTagAndWithoutFlat) {
  Table a = read_table(kConfigs + "/model_configs/a8w8_blockscale_tuned_fmoe_glm5_1.csv");
  EXPECT_TRUE(a.layout.has_gfx);
  EXPECT_FALSE(a.gfx_inferred);
  EXPECT_TRUE(a.layout.missing.empty());
  EXPECT_EQ(a.layout.extra, (std::vector<std::string>{"_tag"}));
  Table b = read_table(kConfigs + "/model_configs/gptoss_fp4_tuned_fmoe.csv");
  EXPECT_EQ(b.layout.family, Family::Moe2Stages);
  EXPECT_EQ(b.layout.missing, (std::vector<std::string>{"gfx", "flat"}));
}

TEST(Table, FamilyFromHeaderAloneAndFromTheFileName) {
  auto header = [](std::string_view family, bool tuned) {
    auto cols = tuned ? spec(*family_from_name(family)).tuned : spec(*family_from_name(family)).untuned;
    return std::vector<std::string>(cols.begin(), cols.end());
  };
  // Unique schemas are recognised without a file name.
  EXPECT_EQ(detect_layout(header("a8w8", true), "x.csv").family, Family::A8W8);
  EXPECT_EQ(detect_layout(header("a8w8_bpreshuffle", true), "x.csv").family, Family::A8W8Bpreshuffle);
  EXPECT_EQ(detect_layout(header("a4w4_blockscale", true), "x.csv").family, Family::A4W4Blockscale);
  EXPECT_EQ(detect_layout(header("moe_2stages", false), "x.csv").family, Family::Moe2Stages);
  // Identical schemas need the file name.
  TableLayout amb = detect_layout(header("a8w8_blockscale", true), "out.csv");
  EXPECT_TRUE(amb.ambiguous());
  EXPECT_EQ(amb.family_text(), "a8w8_blockscale|a8w8_blockscale_bpreshuffle");
  EXPECT_EQ(detect_layout(header("a8w8_blockscale", true), "/x/a8w8_blockscale_bpreshuffle_tuned_gemm_dsv3.csv").family,
            Family::A8W8BlockscaleBpreshuffle);
  EXPECT_EQ(detect_layout(header("a8w8_blockscale", true), "out.csv", Family::A8W8Blockscale).family,
            Family::A8W8Blockscale);
  // A name whose family fits wins, as AITER picks tables by name and reads only its own key columns;
  // the surplus column is reported as extra.
  TableLayout named = detect_layout(header("a8w8", true), "a4w4_blockscale_tuned_gemm.csv");
  EXPECT_EQ(named.family, Family::A4W4Blockscale);
  EXPECT_EQ(named.extra, (std::vector<std::string>{"q_dtype_w"}));
  // A name whose family does not fit loses to the header.
  TableLayout moe_named_gemm = detect_layout(header("moe_2stages", true), "a8w8_tuned_gemm.csv");
  EXPECT_EQ(moe_named_gemm.family, Family::Moe2Stages);
  EXPECT_EQ(moe_named_gemm.name_hint, Family::A8W8);
  EXPECT_EQ(moe_named_gemm.hint_missing, (std::vector<std::string>{"M", "N", "K"}));
  EXPECT_THROW(detect_layout(header("a8w8", true), "x.csv", Family::Moe2Stages), InputError);
}

// A table tune wrote as `-o out.csv` has the blockscale header that its bpreshuffle twin shares: the provenance
// sidecar beside it names the family, and read_table takes it when the header fits it.
TEST(Table, TheTunesProvenanceNamesTheFamilyOfAnAmbiguousTable) {
  const fs::path dir = fs::temp_directory_path() / "cktune_table_provenance_family_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string table = (dir / "out.csv").string();
  write_file_atomic(table,
                    "gfx,cu_num,M,N,K,libtype,kernelId,splitK,us,kernelName,tflops,bw,errRatio\n"
                    "sm_90,132,3,2112,7168,cktune,71,1,10.272,mmad_m8_n16_k128_st8_w8_sk1,8.84,1477.12,0.0\n");
  EXPECT_TRUE(read_table(table).layout.ambiguous()) << "no sidecar: the header alone leaves it open";

  write_file_atomic(provenance_path(table), R"({"gfx": "sm_90", "cu_num": 132, "family": "a8w8_blockscale"})");
  Table t = read_table(table);
  EXPECT_EQ(t.layout.family, Family::A8W8Blockscale);
  EXPECT_TRUE(t.layout.family_from_provenance);
  EXPECT_EQ(t.keys.size(), 1u);
  // --family still decides over the sidecar.
  t = read_table(table, Family::A8W8BlockscaleBpreshuffle);
  EXPECT_EQ(t.layout.family, Family::A8W8BlockscaleBpreshuffle);
  EXPECT_FALSE(t.layout.family_from_provenance);

  // A sidecar naming a family the header does not fit, or no known family, leaves the table ambiguous.
  write_file_atomic(provenance_path(table), R"({"gfx": "sm_90", "cu_num": 132, "family": "moe_2stages"})");
  EXPECT_TRUE(read_table(table).layout.ambiguous());
  write_file_atomic(provenance_path(table), R"({"gfx": "sm_90", "cu_num": 132, "family": "no_such_family"})");
  EXPECT_TRUE(read_table(table).layout.ambiguous());
  fs::remove_all(dir);
}

TEST(Table, NameHintWinsWhenItFitsDespiteAnExtraColumn) {
  Table t = read_table(kConfigs + "/model_configs/a8w8_blockscale_bpreshuffle_untuned_gemm_mm2.5.csv");
  EXPECT_EQ(t.layout.kind, TableKind::Untuned);
  EXPECT_EQ(t.layout.family, Family::A8W8BlockscaleBpreshuffle);
  EXPECT_EQ(t.layout.extra, (std::vector<std::string>{"q_dtype_w"}));
  EXPECT_EQ(t.key_names, (std::vector<std::string>{"M", "N", "K"}));
}

TEST(Table, UnknownLayoutIsReadWithoutKeys) {
  Table t = read_table(kConfigs + "/model_configs/dsv4_batched_gemm_a8w8_blockscale_mxscale_tuned.csv");
  EXPECT_FALSE(t.layout.known());
  EXPECT_FALSE(t.layout.ambiguous());
  EXPECT_EQ(t.layout.family_text(), "unknown");
  EXPECT_EQ(t.layout.kind, TableKind::Tuned);
  EXPECT_FALSE(t.has_keys());
  EXPECT_GT(t.csv.rows.size(), 10u);
}

TEST(Table, BatchedFileKeepsItsOwnColumnOrder) {
  std::string text =
      "gfx,cu_num,B,M,N,K,kernelId,splitK,us,kernelName,errRatio,tflops,bw\n"
      "gfx942,304,16,32,1280,8192,28,0,68.9821,k,0.0,155.6551,5004.8295\n";
  Table t = make_table(parse_csv(text, "bf16_tuned_batched_gemm.csv"));
  EXPECT_EQ(t.layout.family, Family::BatchedBf16);
  EXPECT_TRUE(t.layout.missing.empty());
  EXPECT_EQ(render_csv(t.csv), text);
  EXPECT_EQ(t.keys[0].text(), "gfx942,304,16,32,1280,8192");
}

TEST(Table, KeysAreCanonicalisedButCellsAreNot) {
  std::string text =
      "token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,q_type,use_g1u1,doweight_stage1\n"
      "016, 7168,256,257,8,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,torch.float8_e4m3fn,"
      "QuantType.per_1x128,True,false\n";
  Table t = make_table(parse_csv(text, "untuned_fmoe.csv"));
  EXPECT_EQ(t.keys[0].values[0], "16");
  EXPECT_EQ(t.keys[0].values[10], "1");
  EXPECT_EQ(t.keys[0].values[11], "0");
  EXPECT_EQ(t.csv.rows[0][0], "016");
  EXPECT_EQ(t.csv.rows[0][10], "True");
  EXPECT_EQ(t.keys[0].cu_num, -1);
  EXPECT_EQ(t.keys[0].gfx, "");
}

TEST(Table, GfxSuffixIsDroppedFromTheKey) {
  Table t = make_table(parse_csv("gfx,cu_num,M,N,K,kernelId,splitK,us,kernelName,tflops,bw,errRatio\n"
                                 "gfx942:sramecc+:xnack-,304,1,2,3,0,0,1.0,k,0,0,0.0\n",
                                 "a4w4_blockscale_tuned_gemm.csv"));
  EXPECT_EQ(t.keys[0].gfx, "gfx942");
  EXPECT_EQ(t.csv.rows[0][0], "gfx942:sramecc+:xnack-");
}

TEST(Table, ShortRowsNeedTheirKeyCellsAndUs) {
  const std::string h = "gfx,cu_num,M,N,K,kernelId,splitK,us,kernelName,tflops,bw,errRatio,_tag\n";
  CsvOptions lenient;
  lenient.min_row_cells = 1;
  Table ok = make_table(parse_csv(h + "gfx942,304,1,2,3,0,0,1.0,k,0,0,0.0\n", "a4w4_blockscale_tuned_gemm.csv", lenient));
  EXPECT_EQ(ok.csv.short_rows.size(), 1u);
  try {
    make_table(parse_csv(h + "gfx942,304,1,2,3,0,0\n", "a4w4_blockscale_tuned_gemm.csv", lenient));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 2u);
    EXPECT_EQ(e.column(), 21u);  // just past the last cell
    EXPECT_NE(e.message().find("short row: 7 cells, the header has 13; column us is missing"), std::string::npos)
        << e.message();
  }
}

TEST(Table, BadKeyCellsNameFileLineColumnAndValue) {
  const std::string h = "gfx,cu_num,M,N,K,kernelId,splitK,us,kernelName,tflops,bw,errRatio\n";
  InputError e = input_error_of(h + "gfx942,304,1,2,3,0,0,1.0,k,0,0,0.0\ngfx942,304,1,x4,3,0,0,1.0,k,0,0,0.0\n",
                                "a4w4_blockscale_tuned_gemm.csv");
  EXPECT_EQ(e.file(), "a4w4_blockscale_tuned_gemm.csv");
  EXPECT_EQ(e.line(), 3u);
  EXPECT_EQ(e.column(), 14u);
  EXPECT_NE(e.message().find("key column N has the value 'x4'"), std::string::npos) << e.message();
  EXPECT_NE(e.hint().find("whole number"), std::string::npos);
  EXPECT_EQ(input_error_of(h + "gfx942,304,-1,2,3,0,0,1.0,k,0,0,0.0\n", "a4w4_blockscale_tuned_gemm.csv").column(), 12u);
  EXPECT_EQ(input_error_of(h + "gfx942,304,1,,3,0,0,1.0,k,0,0,0.0\n", "a4w4_blockscale_tuned_gemm.csv").column(), 14u);
  EXPECT_NE(input_error_of(h + "gfx942,0,1,2,3,0,0,1.0,k,0,0,0.0\n", "a4w4_blockscale_tuned_gemm.csv").message().find("cu_num"),
            std::string::npos);
  InputError b = input_error_of(
      "token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,q_type,use_g1u1,doweight_stage1\n"
      "1,2,3,4,5,ActivationType.Silu,torch.bfloat16,torch.bfloat16,torch.bfloat16,QuantType.No,yes,0\n",
      "untuned_fmoe.csv");
  EXPECT_EQ(b.line(), 2u);
  EXPECT_NE(b.hint().find("True/False"), std::string::npos);
}

// validate_key_cells: one rule set for every reader; each bad cell names file:line:col and the value.
TEST(KeyCells, OutOfRangeAndNonCanonicalCellsAreRefused) {
  const std::string h = "gfx,cu_num,M,N,K,kernelId,splitK,us,kernelName,tflops,bw,errRatio\n";
  const std::string name = "a4w4_blockscale_tuned_gemm.csv";
  auto bad = [&](const std::string& row) { return input_error_of(h + "gfx942,304,1,2,3,0,0,1.0,k,0,0,0.0\n" + row, name); };
  InputError big = bad("gfx942,304,1,2,99999999999999999999,0,0,1.0,k,0,0,0.0\n");
  EXPECT_EQ(big.line(), 3u);
  EXPECT_EQ(big.column(), 16u);
  EXPECT_NE(big.message().find("key column K has the value '99999999999999999999'"), std::string::npos) << big.message();
  EXPECT_NE(big.hint().find("1..2147483647"), std::string::npos) << big.hint();
  EXPECT_NE(bad("gfx942,304,1,2,2147483648,0,0,1.0,k,0,0,0.0\n").message().find("'2147483648'"), std::string::npos);
  EXPECT_NE(bad("gfx942,304,0,2,3,0,0,1.0,k,0,0,0.0\n").message().find("key column M has the value '0'"),
            std::string::npos);
  InputError gfx = bad(",304,1,2,3,0,0,1.0,k,0,0,0.0\n");
  EXPECT_EQ(gfx.column(), 1u);
  EXPECT_NE(gfx.message().find("key column gfx has an empty cell"), std::string::npos) << gfx.message();
  EXPECT_NE(bad("gfx 942,304,1,2,3,0,0,1.0,k,0,0,0.0\n").message().find("gfx"), std::string::npos);
  EXPECT_NE(bad("gfx942,-304,1,2,3,0,0,1.0,k,0,0,0.0\n").message().find("cu_num"), std::string::npos);
  EXPECT_NE(bad("gfx942,70000,1,2,3,0,0,1.0,k,0,0,0.0\n").message().find("cu_num"), std::string::npos);

  const std::string moe_h =
      "token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,q_type,use_g1u1,doweight_stage1\n";
  auto moe = [&](const std::string& row) { return input_error_of(moe_h + row, "untuned_fmoe.csv"); };
  EXPECT_NE(moe("1,7168,256,257,8,ActivationType.Silu,bf16,torch.bfloat16,torch.bfloat16,QuantType.No,1,0\n")
                .message()
                .find("key column dtype has the value 'bf16'"),
            std::string::npos);
  EXPECT_NE(moe("1,7168,256,257,8,Silu,torch.bfloat16,torch.bfloat16,torch.bfloat16,QuantType.No,1,0\n")
                .message()
                .find("act_type"),
            std::string::npos);
  EXPECT_NE(moe("1,7168,256,257,8,ActivationType.Silu,torch.bfloat16,torch.bfloat16,torch.bfloat16,'QuantType.No',1,0\n")
                .message()
                .find("q_type"),
            std::string::npos);
  EXPECT_NE(moe("1,7168,256,257,0,ActivationType.Silu,torch.bfloat16,torch.bfloat16,torch.bfloat16,QuantType.No,1,0\n")
                .message()
                .find("topk"),
            std::string::npos);
}

TEST(KeyCells, EveryFixtureTablePasses) {
  for (const auto& path : all_fixture_csvs()) {
    CsvOptions o;
    o.min_row_cells = 1;
    CsvTable c = read_csv(path, o);
    TableLayout l = detect_layout(c.header, path);
    if (!l.family) continue;
    EXPECT_NO_THROW(validate_key_cells(c, *l.family)) << path;
  }
}

TEST(KeyCells, MissingKeyColumnNamesTheHeader) {
  CsvTable c = parse_csv("M,N\n1,2\n", "x.csv");
  try {
    validate_key_cells(c, Family::A8W8Blockscale);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 1u);
    EXPECT_NE(e.message().find("no column K"), std::string::npos) << e.message();
  }
}

}  // namespace
}  // namespace cktune
