#pragma once
// What the CPU GEMM family units share: one instance list (cktune's CPU GEMM algorithms and blockings,
// plus the planted wrong kernels used by tests), the untuned default, and the shape guard. The
// blockscale and per-token units differ only in their inputs, names and kernel entry points.
#include <string>
#include <vector>

#include <cstdint>
#include <memory>
#include <utility>

#include "backends/cpu_backend.hpp"
#include "cktune/cpu/gemm_kernels.hpp"
#include "cktune/engine/family_unit.hpp"
#include "cktune/engine/instance.hpp"
#include "cktune/engine/tuned_row.hpp"

namespace cktune::families {

struct CpuGemmCandidate {
  CpuBlockscaleParams params;
  InstanceDesc desc;
};

// Every CPU GEMM instance for `family`, named by `name` (kernel_name or ptpc_kernel_name).
std::vector<CpuGemmCandidate> cpu_gemm_candidates(Family family, std::string (*name)(const CpuBlockscaleParams&));

// The untuned default: one blocking for every shape, all threads (what a runtime without a table runs):
// tiled m16n64, the blocking of decode shapes (small M, most calls in a serving log), where the weight
// decode dominates and no candidate is measurably faster (docs/perf.md, CPU workflow). It is fixed on
// purpose, like AITER's untuned default instance: kernels added later (the register-blocked `blocked`
// ones, which win from M ~ 16) reach users through tuned tables, and changing the default would change
// every table's "before" and the `current` that --min-improvement compares with.
CpuBlockscaleParams cpu_gemm_default();

// Throws Error when the shape is beyond what the CPU backend prepares (host memory).
void check_cpu_gemm_size(const GemmDims& g);

// What a CPU GEMM family plugs into the shared instance and unit: its workload type W (input sets as
// `views` of type W::View, a HostOutput `out`), how an instance is named, the kernel entry point, and a
// family-specific reason a key cannot run ("" = none).
template <class W>
struct CpuGemmKind {
  Family family;
  Family preshuffled_twin;  // the family whose weights arrive preshuffled
  std::string (*name)(const CpuBlockscaleParams&);
  void (*run)(const CpuBlockscaleParams&, const typename W::View&, std::uint16_t*);
  std::string (*why_not)(const ProblemKey&);
};

template <class W>
class CpuGemmInstance final : public Instance {
 public:
  CpuGemmInstance(const CpuGemmKind<W>& kind, CpuBlockscaleParams p, InstanceDesc d)
      : Instance(std::move(d)), kind_(kind), p_(p) {}
  std::string why_not(const ProblemKey& key) const override {
    if (std::string why = kind_.why_not(key); !why.empty()) return why;
    GemmDims g = gemm_dims(key);
    if (!can_run(p_, static_cast<int>(g.M), static_cast<int>(g.N), static_cast<int>(g.K),
                 key.family == kind_.preshuffled_twin))
      return "this blocking does not fit the shape";
    return {};
  }
  void launch(Workload& w, int set) override {
    // Planted history bug (tests): only the first launch of this instance computes.
    if (p_.bug == PlantedBug::FirstLaunchOnly && launches_++ > 0) return;
    auto& wl = static_cast<W&>(w);
    kind_.run(p_, wl.views[static_cast<size_t>(set)], wl.out.data());
  }

 private:
  const CpuGemmKind<W>& kind_;
  CpuBlockscaleParams p_;
  long launches_ = 0;
};

// Everything of a CPU GEMM unit but prepare(), which draws the family's inputs.
template <class W>
class CpuGemmUnit : public FamilyUnit {
 public:
  explicit CpuGemmUnit(CpuGemmKind<W> kind) : kind_(kind) {}
  std::vector<InstanceDesc> describe() const override {
    std::vector<InstanceDesc> out;
    for (auto& c : cpu_gemm_candidates(kind_.family, kind_.name)) out.push_back(std::move(c.desc));
    return out;
  }
  std::vector<InstancePtr> instances(Backend&) const override {
    std::vector<InstancePtr> out;
    for (auto& c : cpu_gemm_candidates(kind_.family, kind_.name))
      out.push_back(std::make_unique<CpuGemmInstance<W>>(kind_, c.params, std::move(c.desc)));
    return out;
  }
  std::string default_instance(const ProblemKey&, const Backend&) const override {
    return kind_.name(cpu_gemm_default());
  }
  std::vector<std::string> tuned_row(const ProblemKey& key, const DeviceInfo& device, const CandidateResult& winner,
                                     const InstanceDesc&) const override {
    return gemm_tuned_row(key, device, winner);
  }

 protected:
  bool preshuffled() const { return kind_.family == kind_.preshuffled_twin; }

 private:
  CpuGemmKind<W> kind_;
};

}  // namespace cktune::families
