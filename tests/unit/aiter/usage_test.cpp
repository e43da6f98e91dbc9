#include "cktune/aiter/usage.hpp"

#include <gtest/gtest.h>

#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cktune/aiter/instances.hpp"
#include "cktune/formats/csv.hpp"

namespace cktune::aiter {
namespace {

Table table(const std::string& name, const std::string& text) { return make_table(parse_csv(text, name)); }

const std::string kHeader = "gfx,cu_num,M,N,K,libtype,kernelId,splitK,us,kernelName,tflops,bw,errRatio\n";

std::string row(const std::string& dev, int m, const std::string& libtype, int id, const std::string& name) {
  return fmt::format("{},{},128,256,{},{},0,5.0,{},1,2,0.0\n", dev, m, libtype, id, name);
}

TEST(AiterUsage, UsedUnusedAndUnknownPerFamilyAndGfx) {
  const auto ck = ck_blockscale_instances();
  const std::string k0 = ck_blockscale_name(ck[0]), k7 = ck_blockscale_name(ck[7]);
  // Two tables of one family: counts add up; the default -1 is id 7's kernel, so naming it uses id 7.
  std::vector<Table> in = {
      table("a8w8_blockscale_tuned_gemm.csv",
            kHeader + row("gfx942,304", 1, "ck", 0, k0) + row("gfx942,304", 2, "ck", -1, k7) +
                row("gfx942,304", 4, "asm", 3, "_ZN5aiter1xE") + row("gfx942,304", 8, "ck", 3, "nope")),
      table("a8w8_blockscale_tuned_gemm_b.csv", kHeader + row("gfx942,304", 16, "ck", 0, k0))};
  auto groups = ck_usage(in);
  ASSERT_EQ(groups.size(), 1u);
  const auto& g = groups[0];
  EXPECT_EQ(g.family, "a8w8_blockscale");
  EXPECT_EQ(g.gfx, "gfx942");
  EXPECT_EQ(g.libtype, "ck");
  EXPECT_TRUE(g.has_list);
  EXPECT_EQ(g.rows, 4u);
  EXPECT_EQ(g.built, 19u);
  ASSERT_EQ(g.used.size(), 2u);
  EXPECT_EQ(g.used[0], (std::pair<std::string, size_t>{k0, 2}));
  EXPECT_EQ(g.used[1], (std::pair<std::string, size_t>{k7, 1}));
  ASSERT_EQ(g.unknown.size(), 1u);
  EXPECT_EQ(g.unknown[0].first, "nope");
  EXPECT_EQ(g.unused.size(), 17u);
  for (const auto& n : g.unused) EXPECT_TRUE(n != k0 && n != k7) << n;

  auto j = ck_usage_json(groups);
  EXPECT_EQ(j[0]["used_count"], 2);
  EXPECT_EQ(j[0]["unused_count"], 17);
  EXPECT_EQ(j[0]["variant"], nullptr);
  std::string text = ck_usage_text(groups);
  EXPECT_NE(text.find("a8w8_blockscale gfx942 ck: 4 row(s) use 2 of the 19 instance(s) AITER builds; 17 built but "
                      "never used; 1 name(s) AITER does not have"),
            std::string::npos)
      << text;
}

TEST(AiterUsage, GroupsWithoutAList) {
  // bpreshuffle CK-tile rows and sm_90 ck rows: names listed, nothing claimed about AITER's build.
  std::vector<Table> in = {table("a8w8_blockscale_bpreshuffle_tuned_gemm.csv",
                                 kHeader + row("gfx950,256", 1, "cktile", 0, "a8w8_blockscale_bpreshuffle_cktile_x"))};
  auto groups = ck_usage(in);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_FALSE(groups[0].has_list);
  EXPECT_EQ(groups[0].used.size(), 1u);
  EXPECT_TRUE(groups[0].unused.empty());
  EXPECT_TRUE(groups[0].unknown.empty());
  EXPECT_NE(ck_usage_text(groups).find("cktune holds no AITER list"), std::string::npos);
  EXPECT_EQ(ck_usage_text({}), "no ck or cktile rows\n");
}

}  // namespace
}  // namespace cktune::aiter
