// Every GPU a8w8_blockscale instance (and the cuBLASLt slots) against the CPU reference on ragged
// shapes, with fresh random inputs each run (the seed is printed). Skips without a GPU.
#include <gtest/gtest.h>

#if defined(CKTUNE_WITH_GPU)  // the kernel table exists only in GPU builds

#include <chrono>
#include <set>

#include "cktune/gpu/device.hpp"
#include "cktune/tune/backend.hpp"
#include "gpu/gpu_backend.hpp"
#include "kernels/a8w8_blockscale/a8w8_blockscale.hpp"

namespace cktune {
namespace {

ProblemKey key(int M, int N, int K) {
  return ProblemKey{Family::A8W8Blockscale, {std::to_string(M), std::to_string(N), std::to_string(K)}};
}

TEST(GpuBlockscale, NamesAreUniqueAndBuiltFromTheParameters) {
  std::set<std::string> names;
  for (const auto& p : kernels::a8w8_blockscale::instances()) {
    EXPECT_EQ(kernels::a8w8_blockscale::instance_name(p), p.name);
    EXPECT_TRUE(names.insert(p.name).second) << p.name;
  }
  EXPECT_GE(names.size(), 16u);
}

TEST(GpuBlockscale, KNotAMultipleOf128IsRejectedByEveryInstance) {
  for (const auto& p : kernels::a8w8_blockscale::instances())
    EXPECT_NE(kernels::a8w8_blockscale::why_not(p, 16, 256, 200), nullptr) << p.name;
}

TEST(GpuBlockscale, EveryInstanceMatchesTheReferenceOnRaggedShapes) {
  if (gpu::device_count() == 0) GTEST_SKIP() << "no GPU visible";
  auto backend = make_gpu_backend(0);
  const std::uint64_t seed =
      static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  const int shapes[][3] = {{1, 2112, 7168}, {17, 200, 512}, {130, 2112, 1024}, {333, 576, 2048}, {1000, 4096, 512}};
  Protocol protocol;
  protocol.rotate = 1;
  int passed = 0, not_supported = 0;
  std::set<std::string> ran;
  for (const auto& s : shapes) {
    ProblemKey k = key(s[0], s[1], s[2]);
    auto wl = backend->prepare(k, protocol, seed + static_cast<std::uint64_t>(s[0]));
    for (auto& inst : backend->instances(Family::A8W8Blockscale)) {
      if (!inst->why_not(k).empty()) {
        ++not_supported;
        continue;
      }
      CheckResult r;
      try {
        r = backend->verify(*inst, *wl, Tolerance::gemm());
      } catch (const NotSupportedError&) {
        ++not_supported;  // a cuBLASLt heuristic slot the library left empty for this shape
        continue;
      }
      EXPECT_EQ(r.verdict, Verdict::Passed) << inst->desc().name << " on " << k.to_string() << ": " << r.reason;
      if (r.verdict == Verdict::Passed) {
        ++passed;
        ran.insert(inst->desc().name);
      }
    }
  }
  std::printf("%d instance runs passed, %d not supported, %zu distinct instances ran\n", passed, not_supported,
              ran.size());
  EXPECT_GT(passed, 0);
  // Every cktune instance must have run (and passed) on at least one of the shapes.
  for (const auto& p : kernels::a8w8_blockscale::instances()) EXPECT_TRUE(ran.count(p.name)) << p.name << " never ran";
}

}  // namespace
}  // namespace cktune

#endif  // CKTUNE_WITH_GPU
