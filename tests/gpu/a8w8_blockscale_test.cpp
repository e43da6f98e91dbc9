// Every GPU a8w8_blockscale instance (and the cuBLASLt slots) against the CPU reference on ragged
// shapes, with fresh random inputs each run (the seed is printed). Skips without a GPU.
#include <gtest/gtest.h>

#if defined(CKTUNE_WITH_GPU)  // the kernel table exists only in GPU builds

#include <array>
#include <chrono>
#include <set>

#include "cktune/engine/evaluate.hpp"
#include "cktune/engine/family_unit.hpp"
#include "cktune/engine/policy.hpp"
#include "cktune/gpu/device.hpp"
#include "cktune/gpu/runtime.hpp"
#include "cktune/ref/gemm.hpp"
#include "cktune/verify/check.hpp"
#include "backends/gpu_backend.hpp"
#include "kernels/a8w8_blockscale/a8w8_blockscale.hpp"
#include "gemm_checks.hpp"

namespace cktune {
namespace {

ProblemKey key(int M, int N, int K) {
  return ProblemKey{Family::A8W8Blockscale, {std::to_string(M), std::to_string(N), std::to_string(K)}};
}

// cuBLASLt slots first, then every split-K instance: the order that exposed the shared-workspace bug.
std::vector<std::string> unit_names() {
  std::vector<std::string> vendor, split;
  for (const auto& d : find_family_unit(Family::A8W8Blockscale, BackendKind::Gpu)->describe())
    (d.provider == Provider::Blaslt ? vendor : split).push_back(d.name);
  std::erase_if(split, [](const std::string& n) { return n.find("_sk1") != std::string::npos; });
  vendor.insert(vendor.end(), split.begin(), split.end());
  return vendor;
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
  const FamilyUnit& unit = *find_family_unit(Family::A8W8Blockscale, BackendKind::Gpu);
  const std::uint64_t seed =
      static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  const int shapes[][3] = {{1, 2112, 7168}, {17, 200, 512}, {130, 2112, 1024}, {333, 576, 2048}, {1000, 4096, 512},
                           // the swapped-operand decode kernel's 16-token tile
                           {13, 1040, 1536},
                           // the register-fed decode kernel: N not a multiple of its 16 rows, 9 k-blocks over 4, 8
                           // or 16 warps; its 16-token tile at 11 tokens
                           {5, 1000, 1152}, {11, 520, 4096},
                           // the CUDA-core decode kernels (M = 1): N ending inside a warp's 8 rows and past whole
                           // row groups of a CTA, K ending 128 bytes into a 512-byte chunk
                           {1, 1036, 1152},
                           // more tiles than an H200 has SMs: the persistent kernel's split tail (21 tiles past the
                           // last whole wave, in 6 pieces of 1-2 k-blocks)
                           {1100, 2112, 1024}};
  testing::InstanceRuns runs;
  for (const auto& s : shapes)
    testing::run_every_instance(unit, *backend, key(s[0], s[1], s[2]), seed + static_cast<std::uint64_t>(s[0]), runs);
  std::printf("%d instance runs passed, %d not supported, %zu distinct instances ran\n", runs.passed,
              runs.not_supported, runs.ran.size());
  EXPECT_GT(runs.passed, 0);
  // Every cktune instance must have run (and passed) on at least one of the shapes.
  for (const auto& p : kernels::a8w8_blockscale::instances())
    EXPECT_TRUE(runs.ran.count(p.name)) << p.name << " never ran";
}

// The history bug of 2026-11 (docs/perf.md): split-K kernels keep tile counters in their scratch, and
// cuBLASLt once shared that buffer as its workspace; after a cuBLASLt algorithm ran, the counters held
// garbage and the split-K kernels skipped their reduction (nothing written, and a time too short).
// Every split-K instance, run after every cuBLASLt slot on the same workload, must write every output in
// every launch: poison, several launches, check.
TEST(GpuBlockscale, SplitKAfterTheVendorLibraryStillWritesEveryOutput) {
  if (gpu::device_count() == 0) GTEST_SKIP() << "no GPU visible";
  auto backend = make_gpu_backend(0);
  const FamilyUnit& unit = *find_family_unit(Family::A8W8Blockscale, BackendKind::Gpu);
  Protocol protocol;
  protocol.rotate = 2;
  namespace bs = kernels::a8w8_blockscale;
  for (const auto& s : {std::array<int, 3>{100, 576, 7168}, std::array<int, 3>{64, 4096, 7168},
                        std::array<int, 3>{1100, 2112, 1024}}) {
    ProblemKey k = key(s[0], s[1], s[2]);
    // Our instances that keep tile counters in the scratch for this shape: split-K, and the persistent kernel's
    // split tail where the shape has more tiles than the device has SMs.
    auto keeps_counters = [&](const std::string& name) {
      for (const auto& p : bs::instances())
        if (name == p.name) return p.split_k > 1 || bs::workspace_bytes(p, s[0], s[1], s[2]) > 0;
      return false;
    };
    auto wl = unit.prepare(k, protocol, 7, *backend);
    auto insts = unit.instances(*backend);
    int split_checked = 0;
    for (int round = 0; round < 2; ++round)
      for (auto& inst : insts) {
        if (!inst->why_not(k).empty()) continue;
        const bool vendor = inst->desc().provider == Provider::Blaslt;
        if (!vendor && !keeps_counters(inst->desc().name)) continue;
        wl->output().poison();
        try {
          for (int i = 0; i < 6; ++i) inst->launch(*wl, i % wl->sets());
        } catch (const NotSupportedError&) {
          continue;
        }
        CheckResult r = check_output_now(*wl, Tolerance::gemm());
        EXPECT_EQ(r.verdict, Verdict::Passed) << inst->desc().name << " (round " << round << ") on " << k.to_string()
                                              << ": " << r.reason;
        if (!vendor) ++split_checked;
      }
    EXPECT_GT(split_checked, 0) << k.to_string();
  }
}

// The same through the engine: a job whose candidates run cuBLASLt first and split-K after must pass
// every split-K candidate, and the engine's check of the timed launches must agree.
TEST(GpuBlockscale, EvaluationIsIndependentOfCandidateOrder) {
  if (gpu::device_count() == 0) GTEST_SKIP() << "no GPU visible";
  auto backend = make_gpu_backend(0);
  InstanceCache cache(*backend);
  Job job;
  job.key = key(100, 576, 7168);
  job.protocol.iters = 20;
  job.protocol.warmup = 2;
  job.screen_factor = 0;
  job.retime_rounds = 0;
  for (const auto& d : unit_names()) job.candidates.push_back(d);
  auto results = evaluate_job(*backend, cache, job, [](const nlohmann::json&) {});
  int split = 0;
  for (const auto& r : results) {
    if (r.verdict == Verdict::NotSupported) continue;
    EXPECT_EQ(r.verdict, Verdict::Passed) << r.name << ": " << r.reason;
    if (r.split_k > 1) ++split;
  }
  EXPECT_GT(split, 0);
}

// A cluster pair with one M tile runs exactly as the plain persistent kernel does: tune leaves it out
// (Job::skip_redundant), but it can run, and a dispatch of a row tuned at a larger M, which the runtime's
// padded-M lookup may send to this shape, runs it and passes.
TEST(GpuBlockscale, AnEqualTwinIsLeftOutOfTuneButStillRuns) {
  namespace bs = kernels::a8w8_blockscale;
  const int M = 64, N = 2112, K = 1024;
  std::vector<std::string> twins;
  for (const auto& p : bs::instances())
    if (p.variant == bs::Variant::WgmmaPersistentDbMcW) {
      EXPECT_NE(bs::redundant_with(p, M, N, K), nullptr) << p.name;
      EXPECT_EQ(bs::redundant_with(p, 4096, N, K), nullptr) << p.name;
      twins.push_back(p.name);
    }
  ASSERT_FALSE(twins.empty());
  if (gpu::device_count() == 0) GTEST_SKIP() << "no GPU visible";
  auto backend = make_gpu_backend(0);
  if (static_cast<GpuBackend&>(*backend).sm() != 90) GTEST_SKIP() << "the cluster rows are sm_90a only";
  InstanceCache cache(*backend);
  Job job;
  job.key = key(M, N, K);
  job.protocol.iters = 5;
  job.protocol.warmup = 1;
  job.screen_factor = 0;
  job.retime_rounds = 0;
  job.candidates = twins;
  for (bool skip : {true, false}) {
    job.skip_redundant = skip;
    for (const auto& r : evaluate_job(*backend, cache, job, [](const nlohmann::json&) {})) {
      if (skip) {
        EXPECT_EQ(r.verdict, Verdict::NotSupported) << r.name;
        EXPECT_NE(r.reason.find("two M tiles"), std::string::npos) << r.name << ": " << r.reason;
      } else {
        EXPECT_EQ(r.verdict, Verdict::Passed) << r.name << ": " << r.reason;
      }
    }
  }
}

// The CUDA-core decode kernels on fp8 codes over the whole e4m3fn range (the tables' inputs use a tenth of it):
// `gemvh` sums f16 products and must neither overflow (|w x| up to 448^2) nor lose the small products once each
// lane has scaled its activations. Held to the product's rule, and its worst error to a small multiple of the
// fp32-sum kernels' (`gemv`, `mmad`) on the same inputs; the worst errors are printed.
TEST(GpuBlockscale, CudaCoreDecodeHoldsOnFullRangeCodes) {
  if (gpu::device_count() == 0) GTEST_SKIP() << "no GPU visible";
  namespace bs = kernels::a8w8_blockscale;
  const int M = 1, N = 1040, K = 2048, KB = K / 128;
  const std::uint64_t seed =
      static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  std::uint64_t st = seed;
  auto next = [&] {
    st += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = st;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  // Any code but the NaNs (0x7f, 0xff); every fourth activation block is small (exponent field <= 3), so lanes
  // whose largest code is tiny meet lanes whose largest is 448.
  auto code = [&](bool small) {
    std::uint8_t c = static_cast<std::uint8_t>(next());
    if (small) c &= 0x9f;
    return (c & 0x7f) == 0x7f ? static_cast<std::uint8_t>(c ^ 1) : c;
  };
  std::vector<std::uint8_t> xq(static_cast<size_t>(M) * K), wq(static_cast<size_t>(N) * K);
  for (size_t i = 0; i < xq.size(); ++i) xq[i] = code((i / 128) % 4 == 3);
  for (auto& c : wq) c = code(false);
  std::vector<float> xs(static_cast<size_t>(M) * KB), ws(static_cast<size_t>((N + 127) / 128) * KB);
  for (auto& v : xs) v = 0.5f + static_cast<float>(next() >> 40) * 0x1p-24f;
  for (auto& v : ws) v = 0.5f + static_cast<float>(next() >> 40) * 0x1p-24f;
  BlockscaleGemmView view;
  view.M = M, view.N = N, view.K = K, view.xq = xq.data(), view.x_scale = xs.data(), view.wq = wq.data();
  view.w_scale = ws.data();
  std::vector<float> ref(static_cast<size_t>(M) * N);
  ref_a8w8_blockscale(view, ref.data());

  gpu::GpuStream stream;
  auto up = [&](const auto& v) {
    gpu::DeviceBuffer b(v.size() * sizeof(v[0]));
    b.copy_from_host(v.data(), b.size(), stream);
    return b;
  };
  gpu::DeviceBuffer dxq = up(xq), dxs = up(xs), dwq = up(wq), dws = up(ws), dy(static_cast<size_t>(M) * N * 2);
  double worst_exact = 0, worst_half = 0;
  int exact = 0, half = 0;
  for (const auto& p : bs::instances()) {
    const bool is_half = p.variant == bs::Variant::GemvHalf;
    if (!(is_half || p.variant == bs::Variant::Gemv || p.variant == bs::Variant::DirectMma)) continue;
    if (bs::why_not(p, M, N, K) != nullptr) continue;
    std::vector<std::uint16_t> y(static_cast<size_t>(M) * N);
    poison_nan(y.data(), static_cast<std::int64_t>(y.size()));
    dy.copy_from_host(y.data(), y.size() * 2, stream);
    bs::Args a{dxq.as<std::uint8_t>(), dxs.as<float>(), dwq.as<std::uint8_t>(), dws.as<float>(),
               dy.as<std::uint16_t>(), M, N, K, nullptr, 0};
    ASSERT_EQ(bs::launch(p, a, gpu::as_stream(stream.native())), gpu::kSuccess) << p.name;
    dy.copy_to_host(y.data(), y.size() * 2, stream);
    const CheckResult r = check_output(ref.data(), y.data(), M, N, Tolerance::gemm());
    EXPECT_EQ(r.verdict, Verdict::Passed) << p.name << ": " << r.reason;
    (is_half ? worst_half : worst_exact) = std::max(is_half ? worst_half : worst_exact, r.max_abs_err);
    ++(is_half ? half : exact);
  }
  double peak = 0;
  for (float v : ref) peak = std::max(peak, static_cast<double>(std::fabs(v)));
  std::printf("full-range codes, |y| up to %.4g: worst |error| f16 sums %.4g (%d kernels), fp32 sums %.4g (%d)\n",
              peak, worst_half, half, worst_exact, exact);
  EXPECT_GT(half, 0);
  EXPECT_GT(exact, 0);
  EXPECT_LE(worst_half, 8 * worst_exact + 1e-3 * peak);
}

}  // namespace
}  // namespace cktune

#endif  // CKTUNE_WITH_GPU
