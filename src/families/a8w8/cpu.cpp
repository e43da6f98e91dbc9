// a8w8 (per-token activation scales, per-channel weight scales; int8 or fp8) and its bpreshuffle twin
// on the CPU: the CPU GEMM algorithms with the scale product applied per output, checked against the
// exact reference.
#include <fmt/format.h>

#include "backends/cpu_backend.hpp"
#include "cktune/cpu/gemm_kernels.hpp"
#include "cktune/engine/family_unit.hpp"
#include "cktune/engine/policy.hpp"
#include "cktune/engine/tuned_row.hpp"
#include "cktune/numerics/quant.hpp"
#include "cktune/numerics/random.hpp"
#include "cktune/ref/gemm.hpp"
#include "families/common/cpu_gemm.hpp"

namespace cktune {

namespace {

struct PtpcWorkload final : Workload {
  using View = PtpcGemmView;
  std::vector<PtpcGemmInputs> inputs;  // copies of one set (see the blockscale unit)
  std::vector<std::vector<uint8_t>> wq_shuffled;
  std::vector<PtpcGemmView> views;
  HostOutput out;
  explicit PtpcWorkload(size_t cells) : out(cells) {}
  int sets() const override { return static_cast<int>(views.size()); }
  OutputBuffer& output() override { return out; }
};

std::string ptpc_why_not(const ProblemKey& key) {
  return qdtype_from_string(key.get("q_dtype_w")) ? std::string()
                                                 : fmt::format("q_dtype_w {} is not implemented", key.get("q_dtype_w"));
}

class PtpcCpuUnit final : public families::CpuGemmUnit<PtpcWorkload> {
 public:
  explicit PtpcCpuUnit(Family family)
      : CpuGemmUnit({family, Family::A8W8Bpreshuffle, ptpc_kernel_name, cpu_a8w8_ptpc, ptpc_why_not}) {}

  std::unique_ptr<Workload> prepare(const ProblemKey& key, const Protocol& protocol, std::uint64_t seed,
                                    Backend& backend, const Reference* reuse) const override {
    GemmDims g = gemm_dims(key);
    families::check_cpu_gemm_size(g);
    auto dtype = qdtype_from_string(key.get("q_dtype_w"));
    if (!dtype) throw Error(fmt::format("q_dtype_w {} is not implemented on the CPU", key.get("q_dtype_w")));
    const int M = static_cast<int>(g.M), N = static_cast<int>(g.N), K = static_cast<int>(g.K);
    const bool shuffled = preshuffled();
    auto wl = std::make_unique<PtpcWorkload>(static_cast<size_t>(M) * N);
    const int sets = rotation_sets(protocol, backend.device(), backend.policy(), static_cast<double>(M + N) * K);
    PtpcGemmInputs in = make_ptpc_inputs(M, N, K, *dtype, seed * 1000003ull);
    wl->inputs.assign(static_cast<size_t>(sets), in);
    for (auto& set : wl->inputs) {
      wl->views.push_back(view_of(set));
      if (shuffled && can_preshuffle(N, K)) wl->wq_shuffled.push_back(preshuffle_weight(set.wq.data(), N, K));
    }
    for (size_t s = 0; s < wl->wq_shuffled.size(); ++s) {
      wl->views[s].wq = wl->wq_shuffled[s].data();
      wl->views[s].w_preshuffled = true;
    }
    const PtpcGemmView v = view_of(in);
    make_reference(wl->reference, reuse, M, N, static_cast<double>(N) * K, backend.policy(), seed,
                   [&](float* out) { ref_a8w8_ptpc(v, out); },
                   [&](const std::vector<std::int64_t>& rows, float* out) { ref_a8w8_ptpc_rows(v, rows, out); });
    return wl;
  }
};

}  // namespace

const FamilyUnit& a8w8_cpu() {
  static const PtpcCpuUnit unit(Family::A8W8);
  return unit;
}

const FamilyUnit& a8w8_bpreshuffle_cpu() {
  static const PtpcCpuUnit unit(Family::A8W8Bpreshuffle);
  return unit;
}

}  // namespace cktune
