#include "cktune/core/peaks.hpp"

#include <gtest/gtest.h>

namespace cktune {
namespace {

TEST(Peaks, NamesTheRuntimeReportsFindTheirDatasheet) {
  auto h200 = datasheet_peaks("NVIDIA H200");
  ASSERT_TRUE(h200);
  EXPECT_EQ(h200->model, "H200 SXM");
  EXPECT_DOUBLE_EQ(h200->fp8_tflops, 1979);
  EXPECT_DOUBLE_EQ(h200->memory_tbps, 4.8);
  EXPECT_EQ(h200->source, "datasheet");
  // The more specific entries win over their prefixes.
  EXPECT_EQ(datasheet_peaks("NVIDIA H200 NVL")->model, "H200 NVL");
  EXPECT_EQ(datasheet_peaks("NVIDIA H100 PCIe")->model, "H100 PCIe");
  auto sxm = datasheet_peaks("NVIDIA H100 80GB HBM3");
  ASSERT_TRUE(sxm);
  EXPECT_EQ(sxm->model, "H100 SXM");
  EXPECT_DOUBLE_EQ(sxm->memory_tbps, 3.35);
  auto mi300 = datasheet_peaks("AMD Instinct MI300X");
  ASSERT_TRUE(mi300);
  EXPECT_DOUBLE_EQ(mi300->memory_tbps, 5.3);
  EXPECT_DOUBLE_EQ(mi300->tensor_tflops(MathType::Fp4), 0);  // no fp4 rate before MI350
  EXPECT_GT(datasheet_peaks("AMD Instinct MI355X")->tensor_tflops(MathType::Fp4), 0);
  // Not guessed: Grace Hopper (two memories under one name), CPUs, unknown GPUs.
  EXPECT_FALSE(datasheet_peaks("NVIDIA GH200 480GB"));
  EXPECT_FALSE(datasheet_peaks("AMD EPYC 9654 96-Core Processor"));
  EXPECT_FALSE(datasheet_peaks(""));
  // Messages name the models from the table itself.
  const std::string models = datasheet_models();
  EXPECT_EQ(models.rfind("H200 NVL, H200 SXM, ", 0), 0u) << models;
  EXPECT_NE(models.find("MI355X"), std::string::npos);
}

TEST(Peaks, TheFloorIsTheLargerOfArithmeticAndBytes) {
  const DevicePeaks h200 = *datasheet_peaks("NVIDIA H200");
  // Prefill, M=8192 N=7168 K=16384 in fp8: 1.92e12 FLOP at 1979 TFLOP/s = 972 us; its 369 MB take 77 us.
  const double m = 8192, n = 7168, k = 16384;
  HardwareFloor big = hardware_floor(2 * m * n * k, m * k + n * k + 2 * m * n, MathType::Fp8, h200);
  EXPECT_NEAR(big.compute_us, 972.3, 0.1);
  EXPECT_NEAR(big.memory_us, 76.9, 0.1);
  EXPECT_FALSE(big.memory_bound());
  EXPECT_DOUBLE_EQ(big.us(), big.compute_us);
  // Decode, M=1: the 117 MB of weights at 4.8 TB/s, 24.5 us (docs/perf-targets' example).
  HardwareFloor one = hardware_floor(2 * n * k, k + n * k + 2 * n, MathType::Fp8, h200);
  EXPECT_TRUE(one.memory_bound());
  EXPECT_NEAR(one.us(), 24.47, 0.01);
  // bf16 runs at half the fp8 rate; a math type without a rate leaves the bytes' floor alone.
  EXPECT_NEAR(hardware_floor(1e12, 0, MathType::Bf16, h200).us(), 1e12 / 989e6, 1e-9);
  HardwareFloor fp4 = hardware_floor(1e15, 4.8e6, MathType::Fp4, h200);
  EXPECT_EQ(fp4.compute_us, 0);
  EXPECT_NEAR(fp4.us(), 1.0, 1e-12);
}

}  // namespace
}  // namespace cktune
