// a8w8_blockscale and its bpreshuffle twin on the CPU: cktune's CPU GEMM algorithms as candidates,
// checked against the exact reference (same math, the twin with preshuffled weights and transposed
// activation scales).
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

struct BlockscaleWorkload final : Workload {
  using View = BlockscaleGemmView;
  // One input set; the rotation sets are copies at other addresses (rotation is about where the data
  // lives, so every set's output equals the one reference).
  std::vector<BlockscaleGemmInputs> inputs;
  std::vector<std::vector<uint8_t>> wq_shuffled;
  std::vector<std::vector<float>> xs_t;
  std::vector<BlockscaleGemmView> views;
  HostOutput out;
  explicit BlockscaleWorkload(size_t cells) : out(cells) {}
  int sets() const override { return static_cast<int>(views.size()); }
  OutputBuffer& output() override { return out; }
};

std::string blockscale_why_not(const ProblemKey& key) {
  GemmDims g = gemm_dims(key);
  return g.K % 128 != 0 ? fmt::format("K={} is not a multiple of 128", g.K) : std::string();
}

class BlockscaleCpuUnit final : public families::CpuGemmUnit<BlockscaleWorkload> {
 public:
  explicit BlockscaleCpuUnit(Family family)
      : CpuGemmUnit({family, Family::A8W8BlockscaleBpreshuffle, kernel_name, cpu_a8w8_blockscale, blockscale_why_not}) {}

  std::unique_ptr<Workload> prepare(const ProblemKey& key, const Protocol& protocol, std::uint64_t seed,
                                    Backend& backend, const Reference* reuse) const override {
    GemmDims g = gemm_dims(key);
    families::check_cpu_gemm_size(g);
    const int M = static_cast<int>(g.M), N = static_cast<int>(g.N), K = static_cast<int>(g.K);
    const bool shuffled = preshuffled();
    auto wl = std::make_unique<BlockscaleWorkload>(static_cast<size_t>(M) * N);
    const int sets = rotation_sets(protocol, backend.device(), backend.policy(), static_cast<double>(M + N) * K);
    BlockscaleGemmInputs in = make_blockscale_inputs(M, N, K, Fp8Format::E4M3FN, seed * 1000003ull);
    wl->inputs.assign(static_cast<size_t>(sets), in);
    for (auto& set : wl->inputs) {
      BlockscaleGemmView v = view_of(set);
      if (shuffled && can_preshuffle(N, K)) {
        wl->wq_shuffled.push_back(preshuffle_weight(set.wq.data(), N, K));
        wl->xs_t.push_back(transpose(set.x_scale.data(), M, set.k_blocks()));
      }
      wl->views.push_back(v);
    }
    for (size_t s = 0; s < wl->wq_shuffled.size(); ++s) {
      wl->views[s].wq = wl->wq_shuffled[s].data();
      wl->views[s].w_preshuffled = true;
      wl->views[s].x_scale = wl->xs_t[s].data();
      wl->views[s].x_scale_transposed = true;
    }
    make_reference(wl->reference, reuse, M, N, static_cast<double>(N) * K, backend.policy(), seed,
                   [&](float* out) { ref_a8w8_blockscale(in, out); },
                   [&](const std::vector<std::int64_t>& rows, float* out) { ref_a8w8_blockscale_rows(in, rows, out); });
    return wl;
  }
};

}  // namespace

const FamilyUnit& a8w8_blockscale_cpu() {
  static const BlockscaleCpuUnit unit(Family::A8W8Blockscale);
  return unit;
}

const FamilyUnit& a8w8_blockscale_bpreshuffle_cpu() {
  static const BlockscaleCpuUnit unit(Family::A8W8BlockscaleBpreshuffle);
  return unit;
}

}  // namespace cktune
