#include "families/common/cpu_gemm.hpp"

#include <fmt/format.h>

#include "cktune/core/error.hpp"

namespace cktune::families {

namespace {
constexpr int kTestIdBase = 1000;  // kernelIds of the planted wrong instances
}

std::vector<CpuGemmCandidate> cpu_gemm_candidates(Family family, std::string (*name)(const CpuBlockscaleParams&)) {
  std::vector<CpuGemmCandidate> out;
  auto add = [&](const CpuBlockscaleParams& p, int id, bool test) {
    InstanceDesc d;
    d.id = id;
    d.name = name(p);
    d.family = family;
    d.provider = Provider::CktuneCpu;
    d.backend = BackendKind::Cpu;
    d.split_k = p.algo == CpuGemmAlgo::SplitK ? p.split_k : 1;
    d.params = {{"algo", std::string(to_string(p.algo))}, {"tile_m", std::to_string(p.tile_m)},
                {"tile_n", std::to_string(p.tile_n)},    {"split_k", std::to_string(d.split_k)},
                {"threads", std::to_string(p.threads)},  {"pack", p.pack ? "1" : "0"}};
    if (test) d.params.emplace_back("bug", std::string(to_string(p.bug)));
    d.test_only = test;
    out.push_back({p, std::move(d)});
  };
  auto cands = cpu_blockscale_candidates();
  for (size_t i = 0; i < cands.size(); ++i) add(cands[i], static_cast<int>(i), false);
  // Planted wrong kernels (testing only): one per bug, on a fast honest base so they would win on speed.
  const PlantedBug bugs[] = {PlantedBug::CorruptRow, PlantedBug::MissingKTail, PlantedBug::PartialWrite,
                             PlantedBug::FirstLaunchOnly};
  for (int k = 0; k < 4; ++k) {
    CpuBlockscaleParams p = cpu_gemm_default();
    p.bug = bugs[k];
    add(p, kTestIdBase + k, true);
  }
  return out;
}

CpuBlockscaleParams cpu_gemm_default() { return CpuBlockscaleParams{CpuGemmAlgo::Tiled, 16, 64, 1, 0}; }

void check_cpu_gemm_size(const GemmDims& g) {
  if (g.M > (1 << 20) || g.N > (1 << 20) || g.K > (1 << 20))
    throw Error(fmt::format("M={} N={} K={} is too large for the CPU backend", g.M, g.N, g.K),
                "use --device gpu for this shape");
}

}  // namespace cktune::families
