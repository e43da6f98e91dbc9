// rotation_sets: enough input sets that the timed launches read from memory, not from the cache the
// previous launch filled — sized by what one launch reads, bounded by what the sets cost in memory.
#include "cktune/engine/policy.hpp"

#include <gtest/gtest.h>

#include "cktune/numerics/random.hpp"

namespace cktune {
namespace {

DevicePolicy gpu_like() {
  DevicePolicy p;
  p.cache_multiple = 2.0;
  p.min_sets = 2;
  p.max_sets = 32;
  p.set_memory_budget = 16e9;
  return p;
}

TEST(RotationSets, SizedByTheBytesOneLaunchReads) {
  DeviceInfo dev;
  dev.l2_bytes = 50'000'000;
  Protocol proto;
  const DevicePolicy p = gpu_like();
  // Fused MoE, DeepSeek-V3 TP8 at 1 token: a set holds 1.4 GB of weights, a launch reads 44 MB of them.
  EXPECT_EQ(rotation_sets(proto, dev, p, 1.4e9), 2);               // by what a set holds: 2, both L2-sized reads
  EXPECT_EQ(rotation_sets(proto, dev, p, 44e6, 1.4e9), 4);         // by what a launch reads: 2 x 50 MB / 44 MB + 1
  EXPECT_EQ(rotation_sets(proto, dev, p, 1e6, 1.4e9), 11);         // the memory budget bounds it: 16 GB / 1.4 GB
  EXPECT_EQ(rotation_sets(proto, dev, p, 1e6, 1e6), 32);           // and max_sets
  proto.rotate = 3;
  EXPECT_EQ(rotation_sets(proto, dev, p, 44e6, 1.4e9), 3);         // --rotate decides when given
}

TEST(RotationSets, MoeInputsCountOnlyTheRoutedExperts) {
  // 2 tokens, top-2 of 16 experts: at most 4 experts' weights are read.
  const MoeInputs in = make_moe_inputs(2, 256, 128, 16, 2, QuantType::Per1x128, Fp8Format::E4M3FN, 7);
  const double weights = static_cast<double>(in.w1q.size() + in.w2q.size()) +
                         4.0 * static_cast<double>(in.w1_scale.size() + in.w2_scale.size());
  EXPECT_GT(in.stored_bytes(), weights);
  EXPECT_LE(in.touched_bytes(), in.stored_bytes() - weights * 12.0 / 16.0 + 1.0);
  EXPECT_GE(in.touched_bytes(), weights * 2.0 / 16.0);  // at least the two distinct experts of a token
  // Every expert routed: a launch reads everything.
  const MoeInputs all = make_moe_inputs(64, 256, 128, 4, 2, QuantType::Per1x128, Fp8Format::E4M3FN, 7);
  EXPECT_DOUBLE_EQ(all.touched_bytes(), all.stored_bytes());
  EXPECT_EQ(all.experts_reached(), 4);
  // The experts a routing reaches: distinct ids only, ids outside [0, experts) not counted.
  MoeInputs few = in;
  few.topk_ids = {3, 1, 3, 1};
  EXPECT_EQ(few.experts_reached(), 2);
  few.topk_ids = {3, 16, -1, 0};
  EXPECT_EQ(few.experts_reached(), 2);
}

// make_reference: every row within the budget, sampled rows beyond it, and a copy (nothing computed)
// when an earlier reference of the same inputs is handed over (the confirmation's fresh buffers).
TEST(MakeReference, FullSampledOrReused) {
  DevicePolicy p;
  p.reference_macs_budget = 1000;
  p.min_sampled_rows = 2;
  p.max_sampled_rows = 4;
  int full_calls = 0, sampled_calls = 0;
  auto full = [&](float* out) {
    ++full_calls;
    for (int i = 0; i < 6; ++i) out[i] = static_cast<float>(i);
  };
  auto sampled = [&](const std::vector<std::int64_t>& rows, float* out) {
    ++sampled_calls;
    for (size_t i = 0; i < rows.size() * 2; ++i) out[i] = -1.0f;
  };
  Reference small;
  make_reference(small, nullptr, 3, 2, 10.0, p, 7, full, sampled);  // 30 multiply-adds: every row
  EXPECT_TRUE(small.sampled_rows.empty());
  EXPECT_EQ(small.values.size(), 6u);
  EXPECT_EQ(full_calls, 1);

  Reference big;
  make_reference(big, nullptr, 1000, 2, 10.0, p, 7, full, sampled);  // 10000: sampled
  EXPECT_FALSE(big.sampled_rows.empty());
  EXPECT_LE(big.sampled_rows.size(), 4u);
  EXPECT_EQ(big.values.size(), big.sampled_rows.size() * 2);
  EXPECT_EQ(sampled_calls, 1);

  Reference again;
  make_reference(again, &big, 1000, 2, 10.0, p, 7, full, sampled);
  EXPECT_EQ(full_calls, 1);
  EXPECT_EQ(sampled_calls, 1);
  EXPECT_EQ(again.sampled_rows, big.sampled_rows);
  EXPECT_EQ(again.values, big.values);
}

}  // namespace
}  // namespace cktune
