// Every GPU moe_2stages pipeline (sorting + stage 1 + stage 2) against the CPU reference on ragged
// token counts, odd expert counts and both doweight_stage1 settings, with fresh random inputs each run
// (the seed is printed); each pipeline runs twice on the same buffers (no state may carry over).
// Skips without a GPU.
#include <gtest/gtest.h>

#if defined(CKTUNE_WITH_GPU)

#include <chrono>
#include <set>

#include "backends/gpu_backend.hpp"
#include "cktune/engine/family_unit.hpp"
#include "cktune/engine/policy.hpp"
#include "cktune/gpu/device.hpp"
#include "kernels/moe_2stages/moe_2stages.hpp"

namespace cktune {
namespace {

ProblemKey key(int T, int D, int I, int E, int topk, bool doweight1) {
  return ProblemKey{Family::Moe2Stages,
                    {std::to_string(T), std::to_string(D), std::to_string(I), std::to_string(E), std::to_string(topk),
                     "ActivationType.Silu", "torch.bfloat16", "torch.float8_e4m3fn", "torch.float8_e4m3fn",
                     "QuantType.per_1x128", "1", doweight1 ? "1" : "0"}};
}

TEST(GpuMoe, StageNamesAreUnique) {
  std::set<std::string> names;
  for (auto st : {kernels::moe_2stages::Stage::One, kernels::moe_2stages::Stage::Two})
    for (const auto& p : kernels::moe_2stages::stage_instances(st)) EXPECT_TRUE(names.insert(p.name).second) << p.name;
  EXPECT_GE(names.size(), 20u);
}

TEST(GpuMoe, EveryPipelineMatchesTheReference) {
  if (gpu::device_count() == 0) GTEST_SKIP() << "no GPU visible";
  auto backend = make_gpu_backend(0);
  const FamilyUnit& unit = *find_family_unit(Family::Moe2Stages, BackendKind::Gpu);
  const std::uint64_t seed =
      static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  // token, model_dim, inter_dim, experts, topk, doweight_stage1, skewed routing
  const int shapes[][7] = {{1, 1024, 256, 16, 4, 0, 0},  {3, 7168, 256, 256, 8, 0, 0}, {37, 512, 384, 8, 2, 1, 0},
                           {300, 768, 512, 32, 8, 0, 0}, {129, 1024, 256, 4, 4, 0, 0}, {1000, 512, 256, 64, 6, 1, 0},
                           {64, 1024, 256, 32, 8, 0, 1}, {257, 512, 384, 128, 8, 1, 1}};
  int passed = 0;
  std::set<std::string> ran;
  for (const auto& s : shapes) {
    Protocol protocol;
    protocol.rotate = 1;
    protocol.routing = s[6] ? "skewed" : "uniform";
    ProblemKey k = key(s[0], s[1], s[2], s[3], s[4], s[5] != 0);
    auto wl = unit.prepare(k, protocol, seed + static_cast<std::uint64_t>(s[0]), *backend);
    for (auto& inst : unit.instances(*backend)) {
      if (!inst->why_not(k).empty()) continue;
      for (int round = 0; round < 2; ++round) {
        CheckResult r = run_and_check(*inst, *wl, Tolerance::moe());
        EXPECT_EQ(r.verdict, Verdict::Passed)
            << inst->desc().name << " on " << k.to_string() << " (" << protocol.routing << " routing, run " << round + 1
            << "): " << r.reason;
        if (r.verdict == Verdict::Passed && round == 1) {
          ++passed;
          ran.insert(inst->desc().name);
        }
      }
    }
  }
  std::printf("moe pipelines: %d passed runs, %zu distinct pipelines\n", passed, ran.size());
  EXPECT_EQ(ran.size(), unit.describe().size()) << "every pipeline must have run on at least one shape";
}

}  // namespace
}  // namespace cktune

#endif
