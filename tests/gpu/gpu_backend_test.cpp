// The GPU backend's device output on a real device (DeviceOutput::gather: the sampled rows a check reads back);
// every test skips cleanly when no GPU is visible.
#include <gtest/gtest.h>

#if defined(CKTUNE_WITH_GPU)  // the GPU backend exists only in GPU builds

#include <cstdint>
#include <vector>

#include "cktune/core/error.hpp"
#include "cktune/gpu/device.hpp"
#include "cktune/verify/check.hpp"
#include "backends/gpu_backend.hpp"
#include "kernels/common/compat.hpp"

namespace cktune {
namespace {

class GpuDeviceOutput : public ::testing::Test {
 protected:
  void SetUp() override {
    if (gpu::device_count() == 0) {
      std::string why;
      gpu::enumerate_gpus(&why);
      GTEST_SKIP() << "no GPU: " << why;
    }
  }
};

// A cell's value: distinct for every (row, column) of the test's sizes, never the poison pattern.
std::uint16_t cell(std::int64_t r, std::int64_t c) { return static_cast<std::uint16_t>(0x3f00 + r * 97 + c); }

TEST_F(GpuDeviceOutput, GatherPacksTheListedRowsAndCountsTheUnwrittenCells) {
  constexpr std::int64_t kRows = 9, kCols = 37;  // odd sizes: no row starts on a vector boundary
  GpuBackend backend(0);
  DeviceOutput out(backend, kRows * kCols, kRows * kCols + 64);
  out.poison();
  // Every row written but row 2, as a kernel that skipped one row would leave it.
  std::vector<std::uint16_t> host(kRows * kCols);
  for (std::int64_t r = 0; r < kRows; ++r)
    for (std::int64_t c = 0; c < kCols; ++c) host[r * kCols + c] = cell(r, c);
  const auto s = gpu::as_stream(backend.stream().native());
  ASSERT_EQ(gpu::rt::memcpy_h2d_async(out.data(), host.data(), 2 * kCols * sizeof(std::uint16_t), s), gpu::kSuccess);
  ASSERT_EQ(gpu::rt::memcpy_h2d_async(out.data() + 3 * kCols, host.data() + 3 * kCols,
                                      (kRows - 3) * kCols * sizeof(std::uint16_t), s),
            gpu::kSuccess);

  // Out of order and repeated, as the sampled rows may come; the same list twice (a workload's checks all read the
  // reference's rows), then a different one.
  for (const std::vector<std::int64_t>& rows :
       {std::vector<std::int64_t>{8, 0, 5, 8}, std::vector<std::int64_t>{8, 0, 5, 8}, std::vector<std::int64_t>{2, 7}}) {
    std::vector<std::uint16_t> got(3, 0);  // resized by gather
    const std::int64_t unwritten = out.gather(rows, kCols, got);
    EXPECT_EQ(unwritten, kCols);  // row 2, over the whole buffer, whichever rows come back
    ASSERT_EQ(got.size(), rows.size() * kCols);
    for (std::size_t i = 0; i < rows.size(); ++i)
      for (std::int64_t c = 0; c < kCols; ++c) {
        const std::uint16_t want = rows[i] == 2 ? kPoisonBf16Bits : cell(rows[i], c);
        ASSERT_EQ(got[i * kCols + c], want) << "row " << rows[i] << ", column " << c;
      }
  }
  // A row outside the output is an error, not a read past it.
  std::vector<std::uint16_t> got;
  EXPECT_THROW(out.gather(std::vector<std::int64_t>{0, kRows}, kCols, got), Error);
  EXPECT_THROW(out.gather(std::vector<std::int64_t>{-1}, kCols, got), Error);
}

}  // namespace
}  // namespace cktune

#endif  // CKTUNE_WITH_GPU
