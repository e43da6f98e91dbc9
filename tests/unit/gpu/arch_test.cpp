#include <gtest/gtest.h>

#include "cktune/core/error.hpp"
#include "cktune/gpu/device.hpp"
#include "cktune/gpu/runtime.hpp"

namespace cktune::gpu {
namespace {

TEST(NormalizeArch, StripsTargetFeatures) {
  EXPECT_EQ(normalize_arch("gfx942:sramecc+:xnack-"), "gfx942");
  EXPECT_EQ(normalize_arch("gfx950:sramecc+:xnack-"), "gfx950");
  EXPECT_EQ(normalize_arch("gfx90a:xnack+"), "gfx90a");
  EXPECT_EQ(normalize_arch("gfx942"), "gfx942");
  EXPECT_EQ(normalize_arch(" gfx942 "), "gfx942");
  EXPECT_EQ(normalize_arch(""), "");
}

TEST(SmArch, MajorMinor) {
  EXPECT_EQ(sm_arch(9, 0), "sm_90");
  EXPECT_EQ(sm_arch(8, 9), "sm_89");
  EXPECT_EQ(sm_arch(10, 0), "sm_100");
}

TEST(FormatRuntimeVersion, CudaAndHipEncodings) {
  EXPECT_EQ(format_runtime_version(13000), "13.0");
  EXPECT_EQ(format_runtime_version(12080), "12.8");
  EXPECT_EQ(format_runtime_version(0), "");
  EXPECT_EQ(format_runtime_version(-1), "");
  EXPECT_EQ(format_runtime_version(60342134, /*hip=*/true), "6.3.42134");
}

TEST(FormatGpuUuid, AsNvidiaSmiPrintsIt) {
  const unsigned char b[16] = {0x08, 0x2a, 0xf6, 0x3b, 0xae, 0xcb, 0xec, 0xc3,
                               0x16, 0xf5, 0xca, 0x26, 0x58, 0xe9, 0x3a, 0x3e};
  EXPECT_EQ(format_gpu_uuid(b), "GPU-082af63b-aecb-ecc3-16f5-ca2658e93a3e");  // an H200's, from nvidia-smi
  const unsigned char zero[16] = {};
  EXPECT_EQ(format_gpu_uuid(zero), "");
}

TEST(NormalizePciBusId, NvmlAndCudaSpellingsAgree) {
  EXPECT_EQ(normalize_pci_bus_id("00000000:18:00.0"), "0000:18:00.0");
  EXPECT_EQ(normalize_pci_bus_id("0000:18:00.0"), "0000:18:00.0");
  EXPECT_EQ(normalize_pci_bus_id("0000:9A:00.0"), "0000:9a:00.0");
  EXPECT_EQ(normalize_pci_bus_id("0C:00.0"), "0000:0c:00.0");
  EXPECT_EQ(normalize_pci_bus_id("not a bus id"), "");
  EXPECT_EQ(normalize_pci_bus_id("0000:18:00.0 trailing"), "");
}

TEST(CheckMacro, SuccessPassesAndFailureThrowsWithExpressionAndPlace) {
  EXPECT_NO_THROW(CKTUNE_GPU_CHECK(0));
  try {
    CKTUNE_GPU_CHECK(2);
    FAIL() << "expected GpuError";
  } catch (const GpuError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("`2`"), std::string::npos) << what;
    EXPECT_NE(what.find("arch_test.cpp"), std::string::npos) << what;
  }
}

TEST(NoBackend, AnswersWithoutThrowingWhereTheBuildHasNoGpu) {
  if (backend_name() != "none") GTEST_SKIP() << "this build has a GPU backend";
  std::string why;
  EXPECT_TRUE(enumerate_gpus(&why).empty());
  EXPECT_EQ(why, "this build has no GPU backend");
  EXPECT_EQ(device_count(), 0);
  EXPECT_EQ(runtime_versions().backend, "none");
  EXPECT_THROW(DeviceBuffer(16), GpuError);
  EXPECT_THROW(GpuStream(), GpuError);
  EXPECT_NO_THROW(DeviceBuffer(0));
}

}  // namespace
}  // namespace cktune::gpu
