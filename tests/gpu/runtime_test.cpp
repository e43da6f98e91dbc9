// GPU runtime wrappers on a real device; every test skips cleanly when none is visible.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "cktune/core/error.hpp"
#include "cktune/gpu/device.hpp"
#include "cktune/gpu/runtime.hpp"

namespace cktune::gpu {
namespace {

class GpuRuntime : public ::testing::Test {
 protected:
  void SetUp() override {
    if (device_count() == 0) {
      std::string why;
      enumerate_gpus(&why);
      GTEST_SKIP() << "no GPU: " << why;
    }
    set_device(0);
  }
};

TEST_F(GpuRuntime, EnumeratesDevicesWithArchAndCuNum) {
  std::string why;
  auto gpus = enumerate_gpus(&why, /*with_free_memory=*/true);
  ASSERT_FALSE(gpus.empty()) << why;
  for (const auto& g : gpus) {
    EXPECT_FALSE(g.name.empty());
    EXPECT_TRUE(g.gfx.rfind("sm_", 0) == 0 || g.gfx.rfind("gfx", 0) == 0) << g.gfx;
    EXPECT_EQ(g.gfx.find(':'), std::string::npos) << g.gfx;
    EXPECT_GT(g.cu_num, 0);
    EXPECT_GT(g.memory_total_bytes, 0u);
    ASSERT_TRUE(g.memory_free_bytes.has_value());
    EXPECT_LE(*g.memory_free_bytes, g.memory_total_bytes);
    EXPECT_GT(g.l2_bytes, 0u);
    EXPECT_FALSE(g.pci_bus_id.empty());
  }
  auto v = runtime_versions();
  EXPECT_FALSE(v.runtime_version.empty()) << v.error;
  EXPECT_FALSE(v.driver_version.empty()) << v.error;
}

TEST_F(GpuRuntime, CopiesRoundTripThroughDeviceMemory) {
  GpuStream stream;
  std::vector<std::uint32_t> host(1 << 20);
  std::iota(host.begin(), host.end(), 7u);
  DeviceBuffer a(host.size() * sizeof(std::uint32_t));
  DeviceBuffer b(a.size());
  a.copy_from_host(host.data(), a.size(), stream);
  b.copy_from_device_async(a, stream);
  std::vector<std::uint32_t> back(host.size(), 0);
  b.copy_to_host(back.data(), b.size(), stream);
  EXPECT_EQ(back, host);

  b.memset(0xab, stream);
  b.copy_to_host(back.data(), b.size(), stream);
  for (auto v : back) ASSERT_EQ(v, 0xababababu);

  // Partial copy at an offset, and range checks.
  std::uint32_t word = 42;
  b.copy_from_host(&word, sizeof word, stream, 4 * sizeof(std::uint32_t));
  b.copy_to_host(back.data(), b.size(), stream);
  EXPECT_EQ(back[4], 42u);
  EXPECT_EQ(back[3], 0xababababu);
  EXPECT_THROW(b.copy_from_host(host.data(), b.size(), stream, 1), Error);
}

TEST_F(GpuRuntime, BuffersAreMoveOnlyOwners) {
  DeviceBuffer a(4096);
  void* p = a.data();
  DeviceBuffer b(std::move(a));
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): moved-from state is specified
  EXPECT_EQ(a.size(), 0u);
  DeviceBuffer c(64);
  c = std::move(b);
  EXPECT_EQ(c.data(), p);
  EXPECT_EQ(c.size(), 4096u);
}

TEST_F(GpuRuntime, TimerMeasuresEnqueuedWork) {
  GpuStream stream;
  DeviceBuffer big(256u << 20);
  GpuTimer timer(stream);
  timer.start();
  for (int i = 0; i < 4; ++i) big.memset_async(i, stream);
  timer.stop();
  double us = timer.elapsed_us();
  // 1 GiB of memset: well above zero and far below a second on any data-centre GPU.
  EXPECT_GT(us, 10.0);
  EXPECT_LT(us, 1e6);
}

TEST_F(GpuRuntime, RuntimeErrorsBecomeGpuErrorWithTheExpression) {
  // Asking for far more memory than exists fails in the runtime, not in our code.
  try {
    DeviceBuffer too_big(std::size_t{1} << 50);
    FAIL() << "allocation of 1 PiB succeeded";
  } catch (const GpuError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("device_malloc"), std::string::npos) << what;
    EXPECT_NE(what.find("runtime.cpp"), std::string::npos) << what;
  }
  EXPECT_THROW(set_device(device_count() + 5), GpuError);
  set_device(0);
}

}  // namespace
}  // namespace cktune::gpu
