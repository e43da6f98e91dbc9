#include <gtest/gtest.h>

#include "cktune/discover/aiter_configs.hpp"
#include "test_util.hpp"

namespace cktune::discover {
namespace {

using testing::TempDir;
using testing::write_text;

constexpr const char* kBlockscale =
    "gfx,cu_num,M,N,K,libtype,kernelId,splitK,us,kernelName,tflops,bw,errRatio\n"
    "gfx942,304,1,1536,7168,ck,3,0,10.1,k3,1.0,100.0,0.0\n"
    "gfx942,304,2,1536,7168,ck,3,0,10.2,k3,1.0,100.0,0.0\n"
    "gfx942,80,1,1536,7168,ck,3,0,10.3,k3,1.0,100.0,0.0\n"
    "gfx950,256,1,1536,7168,ck,3,0,9.0,k3,1.0,100.0,0.0\n"
    "gfx942,304,1,1536,7168,ck,4,0,11.0,k4,1.0,100.0,0.0\n";  // repeats the first key

TEST(AiterConfigs, CountsRowsPerKeyMatchesAndDuplicates) {
  TempDir tmp;
  auto path = tmp.file("a8w8_blockscale_tuned_gemm.csv");
  write_text(path, kBlockscale);
  std::vector<DeviceKey> devices = {{"gfx942", 304}, {"sm_90", 132}};
  auto f = analyse_config_file(path, std::nullopt, devices);
  EXPECT_TRUE(f.exists);
  EXPECT_TRUE(f.error.empty()) << f.error;
  ASSERT_TRUE(f.family.has_value());
  EXPECT_EQ(*f.family, Family::A8W8Blockscale);
  EXPECT_EQ(f.family_from, "file name");
  EXPECT_TRUE(f.tuned);
  EXPECT_TRUE(f.has_gfx);
  EXPECT_EQ(f.rows, 5u);
  EXPECT_EQ(f.matching, (std::vector<std::size_t>{3, 0}));
  EXPECT_EQ(f.duplicate_keys, 1u);
  ASSERT_EQ(f.keys.size(), 3u);
  EXPECT_EQ(f.keys[0].gfx, "gfx942");
  EXPECT_EQ(f.keys[0].cu_num, 80);
  EXPECT_EQ(f.keys[1].cu_num, 304);
  EXPECT_EQ(f.keys[1].rows, 3u);
}

TEST(AiterConfigs, LegacyTableWithoutGfxMatchesByCuNumAlone) {
  TempDir tmp;
  auto path = tmp.file("my_table.csv");  // the name says nothing: the variable tells the family
  write_text(path,
             "cu_num,token,model_dim,inter_dim,expert,topk,act_type,dtype,q_dtype_a,q_dtype_w,q_type,use_g1u1,"
             "doweight_stage1,block_m,ksplit,us1,kernelName1,err1,us2,kernelName2,err2,us,run_1stage,tflops,bw,_tag\n"
             "304,16,7168,256,257,8,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fnuz,torch.float8_e4m3fnuz,"
             "QuantType.per_1x128,1,0,32,0,1,a,0.0%,1,b,0.0%,2,0,1,1,\n");
  auto f = analyse_config_file(path, Family::Moe2Stages, {{"gfx942", 304}, {"gfx950", 256}});
  EXPECT_TRUE(f.error.empty()) << f.error;
  EXPECT_EQ(f.family_from, "variable");
  EXPECT_FALSE(f.has_gfx);
  EXPECT_EQ(f.matching, (std::vector<std::size_t>{1, 0}));
  EXPECT_EQ(f.duplicate_keys, 0u);
}

TEST(AiterConfigs, MissingAndMalformedFilesAreReportedNotThrown) {
  TempDir tmp;
  auto missing = analyse_config_file(tmp.file("nope.csv"), std::nullopt, {{"gfx942", 304}});
  EXPECT_FALSE(missing.exists);
  EXPECT_EQ(missing.error, "no such file");
  auto bad = tmp.file("a8w8_tuned_gemm.csv");
  write_text(bad, "gfx,cu_num,M\ngfx942,304\n");  // short row
  auto f = analyse_config_file(bad, std::nullopt, {{"gfx942", 304}});
  EXPECT_TRUE(f.exists);
  EXPECT_FALSE(f.error.empty());
  auto dir = analyse_config_file(tmp.path().string(), std::nullopt, {});
  EXPECT_EQ(dir.error, "not a regular file");
}

TEST(AiterConfigs, VariablesAreSplitOnColonsAndTiedToTheirFamily) {
  TempDir tmp;
  auto a = tmp.file("a8w8_blockscale_tuned_gemm.csv");
  write_text(a, kBlockscale);
  EnvMap env = {{"AITER_CONFIG_GEMM_A8W8_BLOCKSCALE", a + "::" + tmp.file("missing.csv")},
                {"AITER_CONFIG_SOMETHING_NEW", ""}, {"HOME", "/root"}};
  auto vars = analyse_config_variables(env, {{"gfx942", 304}});
  ASSERT_EQ(vars.size(), 2u);
  EXPECT_EQ(vars[0].name, "AITER_CONFIG_GEMM_A8W8_BLOCKSCALE");
  EXPECT_EQ(vars[0].family, std::optional<Family>(Family::A8W8Blockscale));
  ASSERT_EQ(vars[0].files.size(), 2u);
  EXPECT_EQ(vars[0].files[0].matching, (std::vector<std::size_t>{3}));
  EXPECT_FALSE(vars[0].files[1].exists);
  EXPECT_FALSE(vars[1].family.has_value());
  EXPECT_TRUE(vars[1].files.empty());
}

TEST(AiterConfigs, DefaultTablesComeFromTheAiterPackageUnlessTheVariableIsSet) {
  TempDir tmp;
  auto pkg = tmp.file("aiter");
  write_text(pkg + "/configs/a8w8_blockscale_tuned_gemm.csv", kBlockscale);
  write_text(pkg + "/configs/model_configs/a8w8_blockscale_tuned_gemm_ds_v3.csv", kBlockscale);
  write_text(pkg + "/configs/model_configs/a8w8_blockscale_untuned_gemm_ds_v3.csv", "M,N,K\n1,2,3\n");
  write_text(pkg + "/configs/tuned_fmoe.csv", "cu_num,token\n80,1\n");
  auto vars = analyse_default_tables(pkg, {}, {{"gfx942", 304}});
  ASSERT_EQ(vars.size(), 2u);
  EXPECT_EQ(vars[0].name, "AITER_CONFIG_GEMM_A8W8_BLOCKSCALE");
  EXPECT_EQ(vars[0].source, "default");
  EXPECT_EQ(vars[0].files.size(), 2u);  // base + model file; the untuned one is not a table AITER loads
  EXPECT_EQ(vars[1].name, "AITER_CONFIG_FMOE");

  EnvMap env = {{"AITER_CONFIG_FMOE", "/elsewhere.csv"}};
  auto without_fmoe = analyse_default_tables(pkg, env, {{"gfx942", 304}});
  ASSERT_EQ(without_fmoe.size(), 1u);
  EXPECT_TRUE(analyse_default_tables(tmp.file("no-aiter-here"), {}, {}).empty());
}

TEST(AiterConfigs, CuNumOverrideReplacesTheDevicesCount) {
  std::vector<std::pair<std::string, int>> devices = {{"gfx942", 304}, {"gfx942", 304}};
  EXPECT_EQ(device_keys(devices, {}), (std::vector<DeviceKey>{{"gfx942", 304}}));
  EXPECT_EQ(device_keys(devices, {{"CU_NUM", "80"}}), (std::vector<DeviceKey>{{"gfx942", 80}}));
  EXPECT_EQ(device_keys(devices, {{"CU_NUM", "lots"}}), (std::vector<DeviceKey>{{"gfx942", 304}}));
}

}  // namespace
}  // namespace cktune::discover
