#include "cktune/formats/problem.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace cktune {
namespace {

ProblemKey moe(const std::string& q_a, const std::string& q_w, long token = 16) {
  return {Family::Moe2Stages,
          {std::to_string(token), "7168", "256", "256", "8", "ActivationType.Silu", "torch.bfloat16", q_a, q_w,
           "QuantType.per_1x128", "1", "0"}};
}

TEST(Problem, MathTypeIsWhatTheTensorCoresMultiplyIn) {
  EXPECT_EQ((ProblemKey{Family::A8W8Blockscale, {"1", "2112", "7168"}}.math_type()), MathType::Fp8);
  EXPECT_EQ((ProblemKey{Family::A8W8, {"1", "2112", "7168", "torch.int8"}}.math_type()), MathType::Int8);
  EXPECT_EQ((ProblemKey{Family::A8W8, {"1", "2112", "7168", "torch.float8_e4m3fnuz"}}.math_type()), MathType::Fp8);
  EXPECT_EQ((ProblemKey{Family::A4W4Blockscale, {"1", "2112", "7168"}}.math_type()), MathType::Fp4);
  EXPECT_EQ((ProblemKey{Family::BatchedBf16, {"4", "1", "2112", "7168"}}.math_type()), MathType::Bf16);
  // Fused MoE: the wider of the activation and weight types.
  EXPECT_EQ(moe("torch.float8_e4m3fn", "torch.float8_e4m3fn").math_type(), MathType::Fp8);
  EXPECT_EQ(moe("torch.int8", "torch.int8").math_type(), MathType::Int8);
  EXPECT_EQ(moe("torch.bfloat16", "torch.int4").math_type(), MathType::Bf16);
  EXPECT_EQ(moe("torch.float8_e4m3fn", "torch.float4_e2m1fn_x2").math_type(), MathType::Fp8);
  EXPECT_EQ(moe("torch.float4_e2m1fn_x2", "torch.float4_e2m1fn_x2").math_type(), MathType::Fp4);
  EXPECT_EQ(moe("torch.int8", "torch.int4").math_type(), MathType::Int8);
}

TEST(Problem, FewestBytesCountEachWeightOnceAtItsWidth) {
  // 16 tokens x topk 8 of 256 experts reach 256 * (1 - (1 - 8/256)^16) = 101.97 of them under uniform routing
  // (not the 128 that 16 * 8 would allow): bf16 activations in and out, 3 * 256 * 7168 weights an expert.
  const double act = 2.0 * 16 * 7168 * 2, per_expert = 3.0 * 256 * 7168;
  const double reached = 256 * (1 - std::pow(31.0 / 32.0, 16));
  EXPECT_NEAR(reached, 101.97, 0.01);
  EXPECT_DOUBLE_EQ(moe("torch.float8_e4m3fn", "torch.float8_e4m3fn").min_bytes(), act + reached * per_expert);
  EXPECT_DOUBLE_EQ(moe("torch.bfloat16", "torch.bfloat16").min_bytes(), act + reached * per_expert * 2);
  // int4 and fp4 weights are half a byte each.
  EXPECT_DOUBLE_EQ(moe("torch.bfloat16", "torch.int4").min_bytes(), act + reached * per_expert / 2);
  EXPECT_DOUBLE_EQ(moe("torch.float4_e2m1fn_x2", "torch.float4_e2m1fn_x2").min_bytes(), act + reached * per_expert / 2);
  // One token reaches exactly topk experts; 4096 tokens all 256 (to 1e-50).
  EXPECT_DOUBLE_EQ(moe("torch.float8_e4m3fn", "torch.float8_e4m3fn", 1).min_bytes(), 2.0 * 7168 * 2 + 8 * per_expert);
  EXPECT_DOUBLE_EQ(moe("torch.float8_e4m3fn", "torch.float8_e4m3fn", 4096).min_bytes(),
                   2.0 * 4096 * 7168 * 2 + 256 * per_expert);
}

TEST(Problem, FewestBytesOfOneRoutingCountTheExpertsItReaches) {
  // A run moves the weights of the experts its own routing reaches: 106 for one seeded draw of 16 DeepSeek-V3 tokens,
  // not the 101.97 expected.
  const double act = 2.0 * 16 * 7168 * 2, per_expert = 3.0 * 256 * 7168;
  const ProblemKey k = moe("torch.float8_e4m3fn", "torch.float8_e4m3fn");
  EXPECT_DOUBLE_EQ(k.min_bytes(106), act + 106 * per_expert);
  EXPECT_DOUBLE_EQ(k.min_bytes(256 * (1 - std::pow(31.0 / 32.0, 16))), k.min_bytes());
  EXPECT_DOUBLE_EQ(moe("torch.bfloat16", "torch.int4").min_bytes(8), act + 8 * per_expert / 2);
  // A GEMM's bytes do not depend on its inputs' values.
  const ProblemKey g{Family::A8W8Blockscale, {"16", "2112", "7168"}};
  EXPECT_DOUBLE_EQ(g.min_bytes(106), g.min_bytes());
  // The bytes a run counted, where it counted them; else the key's.
  EXPECT_DOUBLE_EQ(k.min_bytes_or(k.min_bytes(106)), act + 106 * per_expert);
  EXPECT_DOUBLE_EQ(k.min_bytes_or(0), k.min_bytes());
  EXPECT_DOUBLE_EQ(k.min_bytes_or(std::numeric_limits<double>::infinity()), k.min_bytes());
}

}  // namespace
}  // namespace cktune
