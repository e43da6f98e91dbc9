#include <gtest/gtest.h>

#include <algorithm>

#include "cktune/discover/discover.hpp"
#include "test_util.hpp"

namespace cktune::discover {
namespace {

using testing::TempDir;
using testing::write_text;

DiscoverOptions offline() {
  DiscoverOptions o;
  o.query_python = false;
  o.query_smi = false;
  return o;
}

// #12: discover says what is verified where; on an AMD machine (or a HIP build) it says plainly that
// nothing has run on AMD hardware and that `tune` writes no AITER row there.
TEST(Discover, VerificationStatusNamesWhatRanWhere) {
  DiscoverReport r;
  r.build.gpu_backend = "none";
  auto v = verification_status(r);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].find("CPU backend"), std::string::npos);
  r.build.gpu_backend = "cuda";
  v = verification_status(r);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_NE(v[1].find("H200"), std::string::npos);
  GpuEntry amd;
  amd.device.gfx = "gfx942";
  r.build.gpu_backend = "hip";
  r.gpus = {amd};
  v = verification_status(r);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_NE(v[1].find("nothing in cktune has run on AMD hardware"), std::string::npos);
  EXPECT_NE(v[1].find("writes no AITER row"), std::string::npos);
  EXPECT_NE(render_text(r).find("Verified"), std::string::npos);
  EXPECT_TRUE(to_json(r)["verification"].is_array());
}

// Each GPU's datasheet peaks (what report's hardware floors are counted from), once per model in the text.
TEST(Discover, ShowsTheDatasheetPeaksOfEachGpuModel) {
  DiscoverReport r;
  r.build.gpu_backend = "cuda";
  GpuEntry h200;
  h200.device.name = "NVIDIA H200";
  h200.device.gfx = "sm_90";
  GpuEntry other;
  other.device.name = "Some GPU";
  other.device.index = 2;
  r.gpus = {h200, h200, other};
  r.gpus[1].device.index = 1;
  auto j = to_json(r);
  EXPECT_EQ(j["gpus"]["devices"][0]["datasheet_peaks"]["model"], "H200 SXM");
  EXPECT_EQ(j["gpus"]["devices"][0]["datasheet_peaks"]["memory_tbps"].get<double>(), 4.8);
  EXPECT_TRUE(j["gpus"]["devices"][2]["datasheet_peaks"].is_null());
  const std::string text = render_text(r);
  const std::string line = "  H200 SXM datasheet, dense: fp8 1979, int8 1979, bf16 989 TFLOP/s; memory 4.8 TB/s\n";
  EXPECT_NE(text.find(line), std::string::npos) << text;
  EXPECT_EQ(text.find(line), text.rfind(line));  // two H200s, one line
}

TEST(Discover, JsonHasEveryTopLevelSectionEvenWithNothingFound) {
  auto r = discover(offline(), {});
  auto j = to_json(r);
  for (const char* key : {"gpus", "runtime", "management", "visibility", "cu_num_override", "device_keys", "python",
                          "aiter", "packages", "aiter_configs", "build", "verification", "warnings"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["gpus"]["count"].get<size_t>(), r.gpus.size());
  EXPECT_TRUE(j["visibility"].contains("CUDA_VISIBLE_DEVICES"));
  EXPECT_TRUE(j["visibility"]["CUDA_VISIBLE_DEVICES"].is_null());
  EXPECT_FALSE(j["python"]["found"].get<bool>());
  EXPECT_FALSE(j["aiter"]["found"].get<bool>());
  EXPECT_TRUE(j["build"]["backends"].is_array());
  EXPECT_EQ(j["build"]["backends"][0], "cpu");
  // Every family listed belongs to a compiled backend; the CPU reference backend always has instances.
  bool cpu_family = false;
  for (const auto& f : j["build"]["families"]) {
    auto backends = j["build"]["backends"];
    EXPECT_NE(std::find(backends.begin(), backends.end(), f["backend"]), backends.end()) << f.dump();
    EXPECT_GT(f["instances"].get<int>() + f["test_only"].get<int>(), 0) << f.dump();
    cpu_family |= f["backend"] == "cpu";
  }
  EXPECT_TRUE(cpu_family) << j["build"].dump();
  if (r.gpus.empty()) {
    EXPECT_FALSE(j["gpus"]["note"].is_null());
  }
}

TEST(Discover, TextNamesTheMissingPieces) {
  auto r = discover(offline(), {});
  auto text = render_text(r);
  EXPECT_NE(text.find("GPUs"), std::string::npos);
  EXPECT_NE(text.find("not available"), std::string::npos);  // no Python asked
  EXPECT_NE(text.find("This build"), std::string::npos);
  if (r.gpus.empty()) {
    EXPECT_NE(text.find("none: "), std::string::npos);
  }
}

TEST(Discover, ConfigVariablesAreAnalysedAgainstDeviceKeys) {
  TempDir tmp;
  auto path = tmp.file("a8w8_blockscale_tuned_gemm.csv");
  write_text(path,
             "gfx,cu_num,M,N,K,libtype,kernelId,splitK,us,kernelName,tflops,bw,errRatio\n"
             "gfx942,304,1,1536,7168,ck,3,0,10.1,k3,1.0,100.0,0.0\n");
  EnvMap env = {{"AITER_CONFIG_GEMM_A8W8_BLOCKSCALE", path}, {"CUDA_VISIBLE_DEVICES", "-1"}};
  auto r = discover(offline(), env);
  ASSERT_EQ(r.configs.size(), 1u);
  auto j = to_json(r);
  EXPECT_EQ(j["aiter_configs"][0]["files"][0]["rows"], 1);
  EXPECT_EQ(j["aiter_configs"][0]["family"], "a8w8_blockscale");
  EXPECT_EQ(j["visibility"]["CUDA_VISIBLE_DEVICES"], "-1");
  bool hides = false;
  for (const auto& w : r.warnings) hides |= w.find("hides every GPU") != std::string::npos;
  EXPECT_TRUE(hides);
}

// The warning rules, on a report built by hand (no GPU needed).
TEST(DeriveWarnings, FlagsTablesThatNeverMatchOldSglangAndForeignCommits) {
  DiscoverReport r;
  r.build.gpu_backend = "cuda";
  DeviceInfo d;
  d.gfx = "gfx942";
  d.cu_num = 304;
  r.gpus.push_back({d, std::nullopt});
  r.cu_num_override = "80";
  r.device_keys = {{"gfx942", 80}};
  r.aiter.found = true;
  r.aiter.path = "/src/aiter/aiter";
  GitInfo g;
  g.in_repo = true;
  g.commit = "0123456789abcdef0123456789abcdef01234567";
  g.descends = Ancestry::No;
  r.aiter.git = g;
  r.packages.push_back({"sglang", true, "0.5.2", "", "0.5.6", false});
  ConfigVar v;
  v.name = "AITER_CONFIG_GEMM_A8W8";
  v.source = "environment";
  ConfigFile f;
  f.path = "/t.csv";
  f.exists = true;
  f.tuned = true;
  f.has_cu_num = true;
  f.rows = 10;
  f.matching = {0};
  f.duplicate_keys = 2;
  v.files.push_back(f);
  r.configs.push_back(v);

  auto w = derive_warnings(r);
  auto has = [&](std::string_view s) {
    for (const auto& x : w)
      if (x.find(s) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(has("CU_NUM=80 overrides"));
  EXPECT_TRUE(has("does not descend from 303a583c89fe"));
  EXPECT_TRUE(has("sglang 0.5.2 is older than the expected 0.5.6"));
  EXPECT_TRUE(has("never used here"));
  EXPECT_TRUE(has("repeats 2 key(s)"));
  EXPECT_FALSE(has("no GPU visible"));
}

TEST(DeriveWarnings, QuietWhenAllIsWell) {
  DiscoverReport r;
  r.build.gpu_backend = "none";
  r.packages.push_back({"sglang", true, "0.5.6.post1", "", "0.5.6", true});
  EXPECT_TRUE(derive_warnings(r).empty());
}

}  // namespace
}  // namespace cktune::discover
