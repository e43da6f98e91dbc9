// The compile-time check that a warp-specialised kernel's setmaxnreg split fits the registers its CTA got at launch.
#include "kernels/common/register_split.hpp"

#include <gtest/gtest.h>

namespace cktune::gpu::sm90 {
namespace {

TEST(RegisterSplit, LaunchRegistersFollowLaunchBounds) {
  EXPECT_EQ(launch_regs(384, 1), 168);  // 65536 / 384 = 170.7, down to a multiple of 8
  EXPECT_EQ(launch_regs(256, 2), 128);
  EXPECT_EQ(launch_regs(640, 1), 96);   // 102.4 -> 96
}

TEST(RegisterSplit, TheSplitsTheKernelsUseFit) {
  EXPECT_TRUE(register_split_fits(384, 1, 40, 2, 232));  // two consumer warpgroups: 40 + 2 x 232 = 3 x 168
  EXPECT_TRUE(register_split_fits(256, 2, 40, 1, 208));  // one consumer warpgroup, two CTAs an SM
}

TEST(RegisterSplit, ASplitBeyondThePoolIsRefused) {
  // The split that hung every MoE stage launch on an H200: the consumers' increase waited forever.
  EXPECT_FALSE(register_split_fits(384, 1, 48, 2, 232));
  EXPECT_FALSE(register_split_fits(256, 2, 40, 1, 224));  // 40 + 224 > 2 x 128
}

}  // namespace
}  // namespace cktune::gpu::sm90
