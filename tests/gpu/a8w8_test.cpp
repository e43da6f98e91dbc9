// Every GPU a8w8 and a8w8_bpreshuffle instance (per-token activation scales, per-channel weight scales;
// weights row-major or preshuffled) and the cuBLASLt outer-vector slots against the CPU reference on
// ragged shapes, with fresh random inputs each run (the seed is printed). Skips without a GPU.
#include <gtest/gtest.h>

#if defined(CKTUNE_WITH_GPU)  // the kernel tables exist only in GPU builds

#include <algorithm>
#include <chrono>
#include <set>
#include <string>

#include "cktune/engine/evaluate.hpp"
#include "cktune/engine/family_unit.hpp"
#include "cktune/engine/policy.hpp"
#include "cktune/gpu/device.hpp"
#include "backends/gpu_backend.hpp"
#include "kernels/a8w8_blockscale/a8w8_blockscale.hpp"
#include "gemm_checks.hpp"

namespace cktune {
namespace {

namespace bs = kernels::a8w8_blockscale;

ProblemKey key(Family f, int M, int N, int K, const char* dtype = "torch.float8_e4m3fn") {
  return ProblemKey{f, {std::to_string(M), std::to_string(N), std::to_string(K), dtype}};
}

bs::Scaling scaling_of(Family f, bool int8 = false) {
  if (int8) return f == Family::A8W8 ? bs::Scaling::PerTokenI8 : bs::Scaling::PerTokenI8PreshuffledW;
  return f == Family::A8W8 ? bs::Scaling::PerToken : bs::Scaling::PerTokenPreshuffledW;
}

class GpuPerToken : public ::testing::TestWithParam<Family> {};

TEST_P(GpuPerToken, NamesAreUniqueAcrossTheFiveTables) {
  std::set<std::string> names;
  for (auto s : {bs::Scaling::Block128, bs::Scaling::PerToken, bs::Scaling::PerTokenPreshuffledW,
                 bs::Scaling::PerTokenI8, bs::Scaling::PerTokenI8PreshuffledW})
    for (const auto& p : bs::instances(s)) {
      EXPECT_EQ(bs::instance_name(p), p.name);
      EXPECT_EQ(p.scaling, s) << p.name;
      EXPECT_TRUE(names.insert(p.name).second) << p.name;
    }
  EXPECT_GE(bs::instances(scaling_of(GetParam())).size(), 20u);
  EXPECT_GE(bs::instances(scaling_of(GetParam(), true)).size(), 20u);
  std::set<int> ids;  // kernelIds are unique within the family (the int8 table's are offset)
  for (const auto& d : find_family_unit(GetParam(), BackendKind::Gpu)->describe())
    EXPECT_TRUE(ids.insert(d.id).second) << d.name;
}

TEST_P(GpuPerToken, EveryInstanceMatchesTheReferenceOnRaggedShapes) {
  if (gpu::device_count() == 0) GTEST_SKIP() << "no GPU visible";
  const Family family = GetParam();
  auto backend = make_gpu_backend(0);
  const FamilyUnit& unit = *find_family_unit(family, BackendKind::Gpu);
  const std::uint64_t seed =
      static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  // N % 16 == 0 for the preshuffled layout; M and N ragged against every tile; K from one to 56 stages.
  // 13 tokens: the swapped-operand decode kernel's 16-token tile (1 and 17 take its 8- and 32-token ones).
  // 5 x 1008 x 1152: 9 k-blocks over the register-fed decode kernel's 4, 8 or 16 warps; 11 x 528 x 4096: its
  // 16-token tile. 1 x 1040 x 1152: the CUDA-core decode kernels' CTAs of 32 and 64 rows end past N, and K ends
  // 128 bytes into their last 512-byte chunk.
  const int shapes[][3] = {{1, 2112, 7168}, {17, 208, 512},  {130, 2112, 1024}, {333, 576, 2048},
                           {1000, 4096, 640}, {13, 1040, 1536}, {5, 1008, 1152}, {11, 528, 4096},
                           {1, 1040, 1152}};
  testing::InstanceRuns runs;
  for (const char* dtype : {"torch.float8_e4m3fn", "torch.int8"})
    for (const auto& s : shapes)
      testing::run_every_instance(unit, *backend, key(family, s[0], s[1], s[2], dtype),
                                  seed + static_cast<std::uint64_t>(s[0]), runs);
  std::printf("%s: %d instance runs passed (%d cuBLASLt outer-vector), %d not supported, %zu distinct instances ran\n",
              std::string(family_name(family)).c_str(), runs.passed, runs.vendor, runs.not_supported, runs.ran.size());
  EXPECT_GT(runs.passed, 0);
  for (bool int8 : {false, true})
    for (const auto& p : bs::instances(scaling_of(family, int8)))
      EXPECT_TRUE(runs.ran.count(p.name)) << p.name << " never ran";
}

// A row-major N that is not a multiple of 16 runs on the plain layout; the preshuffled one refuses it
// with a reason, at the instance and at prepare.
TEST_P(GpuPerToken, RaggedNAndOtherDtypes) {
  const Family family = GetParam();
  const FamilyUnit& unit = *find_family_unit(family, BackendKind::Gpu);
  for (const auto& p : bs::instances(scaling_of(family))) {
    const char* why = bs::why_not(p, 37, 200, 640);
    if (family == Family::A8W8Bpreshuffle) {
      EXPECT_NE(why, nullptr) << p.name;
    }
    EXPECT_NE(bs::why_not(p, 16, 256, 200), nullptr) << p.name << ": K % 128 != 0 must be refused";
  }
  if (gpu::device_count() == 0) GTEST_SKIP() << "no GPU visible";
  auto backend = make_gpu_backend(0);
  // MI300's fp8 (e4m3fnuz) runs on the CPU backend only; int8 keys have no vendor baseline.
  const ProblemKey fnuz = key(family, 16, 256, 512, "torch.float8_e4m3fnuz");
  for (auto& inst : unit.instances(*backend)) EXPECT_NE(inst->why_not(fnuz).find("e4m3fnuz"), std::string::npos);
  Protocol protocol;
  EXPECT_THROW(unit.prepare(fnuz, protocol, 1, *backend), Error);
  const ProblemKey int8 = key(family, 16, 256, 512, "torch.int8");
  for (auto& inst : unit.instances(*backend))
    if (inst->desc().provider == Provider::Blaslt) {
      EXPECT_NE(inst->why_not(int8).find("fp8 only"), std::string::npos);
    }
  if (family == Family::A8W8Bpreshuffle) {
    EXPECT_THROW(unit.prepare(key(family, 37, 200, 640), protocol, 1, *backend), Error);
  } else {
    auto wl = unit.prepare(key(family, 37, 200, 640), protocol, 1, *backend);
    int checked = 0;
    for (auto& inst : unit.instances(*backend)) {
      if (!inst->why_not(key(family, 37, 200, 640)).empty() || inst->desc().provider == Provider::Blaslt) continue;
      EXPECT_EQ(run_and_check(*inst, *wl, Tolerance::gemm()).verdict, Verdict::Passed) << inst->desc().name;
      ++checked;
    }
    EXPECT_GT(checked, 0);
  }
}

// Fast accumulation (wgmmaf, wgmmapf) adds every k-block straight into the tensor cores' accumulator; the other
// wgmma kernels promote a fresh partial every 128 K. On a long K both must pass the rule; the test prints the
// worst absolute error of each kind (docs/arch/kernels.md quotes them).
TEST_P(GpuPerToken, FastAccumulationPassesOnALongK) {
  if (gpu::device_count() == 0) GTEST_SKIP() << "no GPU visible";
  const Family family = GetParam();
  auto backend = make_gpu_backend(0);
  const FamilyUnit& unit = *find_family_unit(family, BackendKind::Gpu);
  const ProblemKey k = key(family, 256, 1024, 16384);
  Protocol protocol;
  auto wl = unit.prepare(k, protocol, 1, *backend);
  double worst_fast = 0, worst_promoted = 0;
  int fast = 0, promoted = 0;
  for (auto& inst : unit.instances(*backend)) {
    const std::string name = inst->desc().name;
    if (!inst->why_not(k).empty() || inst->desc().provider == Provider::Blaslt || name.find("wgmma") == std::string::npos)
      continue;
    const bool is_fast = name.find("wgmmaf_") != std::string::npos || name.find("wgmmapf_") != std::string::npos;
    const CheckResult r = run_and_check(*inst, *wl, Tolerance::gemm());
    EXPECT_EQ(r.verdict, Verdict::Passed) << name << ": " << r.reason;
    (is_fast ? worst_fast : worst_promoted) = std::max(is_fast ? worst_fast : worst_promoted, r.max_abs_err);
    ++(is_fast ? fast : promoted);
  }
  std::printf("%s 256x1024x16384: worst |error| %.4g over %d fast-accumulation instances, %.4g over %d promoting ones\n",
              std::string(family_name(family)).c_str(), worst_fast, fast, worst_promoted, promoted);
  EXPECT_GT(fast, 0);
  EXPECT_GT(promoted, 0);
}

// A tuned row serves the M values below its own through the padded-M lookup (a row of M = 16 runs M = 2), so
// the swapped-operand decode kernel takes every M its token tile holds, and none beyond.
TEST_P(GpuPerToken, SwappedOperandKernelTakesEveryMItsTokenTileHolds) {
  int checked = 0;
  for (const auto& p : bs::instances(scaling_of(GetParam()))) {
    if (p.variant != bs::Variant::WgmmaSwap) continue;
    if (bs::why_not(p, 1, 4096, 4096) != nullptr) GTEST_SKIP() << "this build has no wgmma path: " << p.name;
    for (int M : {1, 2, 7, 8, 9, 16, 17, 31, 32, 33, 64}) {
      EXPECT_EQ(bs::why_not(p, M, 4096, 4096) == nullptr, M <= p.tile_m) << p.name << " at M = " << M;
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
}

// cuBLASLt reads the preshuffled family's weights from a row-major copy, so it is bench's baseline and
// never a tuning candidate there; in a8w8 it is both.
TEST_P(GpuPerToken, VendorSlotsAreBaselineOnlyOnPreshuffledWeights) {
  const Family family = GetParam();
  int vendor = 0;
  for (const auto& d : find_family_unit(family, BackendKind::Gpu)->describe()) {
    if (d.provider != Provider::Blaslt) {
      EXPECT_FALSE(d.baseline_only) << d.name;
      continue;
    }
    ++vendor;
    EXPECT_EQ(d.baseline_only, family == Family::A8W8Bpreshuffle) << d.name;
  }
  EXPECT_GT(vendor, 0);
}

INSTANTIATE_TEST_SUITE_P(Families, GpuPerToken, ::testing::Values(Family::A8W8, Family::A8W8Bpreshuffle),
                         [](const ::testing::TestParamInfo<Family>& i) {
                           return i.param == Family::A8W8 ? std::string("a8w8") : std::string("a8w8_bpreshuffle");
                         });

}  // namespace
}  // namespace cktune

#endif  // CKTUNE_WITH_GPU
