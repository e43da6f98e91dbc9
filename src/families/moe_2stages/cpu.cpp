// Fused MoE (moe_2stages, g1u1) on the CPU: both stages as one candidate per algorithm and block_m,
// checked against the exact two-stage reference.
#include <fmt/format.h>

#include "backends/cpu_backend.hpp"
#include "cktune/cpu/moe_kernels.hpp"
#include "cktune/engine/family_unit.hpp"
#include "cktune/engine/policy.hpp"
#include "cktune/engine/tuned_row.hpp"
#include "cktune/numerics/random.hpp"
#include "cktune/ref/moe.hpp"

namespace cktune {

namespace {

constexpr int kTestIdBase = 1000;  // kernelIds of the planted wrong instances

struct MoeWorkload final : Workload {
  std::vector<MoeInputs> inputs;  // copies of one set at other addresses
  MoeParams params;
  HostOutput out;
  double bytes = 0;  // the least a launch moves: the experts this routing reaches
  explicit MoeWorkload(size_t cells) : out(cells) {}
  int sets() const override { return static_cast<int>(inputs.size()); }
  OutputBuffer& output() override { return out; }
  double min_bytes() const override { return bytes; }
};

class MoeCpuInstance final : public Instance {
 public:
  MoeCpuInstance(CpuMoeParams p, InstanceDesc d) : Instance(std::move(d)), p_(p) {}
  std::string why_not(const ProblemKey& key) const override {
    if (key.get("use_g1u1") != "1") return "only g1u1 (gate and up fused) is implemented";
    const std::string& q = key.get("q_type");
    if (q != "QuantType.per_1x128" && q != "QuantType.No") return fmt::format("{} is not implemented on the CPU", q);
    if (!activation_from_string(key.get("act_type"))) return fmt::format("{} is not implemented", key.get("act_type"));
    return {};
  }
  void launch(Workload& w, int set) override {
    auto& wl = static_cast<MoeWorkload&>(w);
    cpu_moe_2stages(p_, wl.inputs[static_cast<size_t>(set)], wl.params, wl.out.data());
  }

 private:
  CpuMoeParams p_;
};

std::vector<std::pair<CpuMoeParams, InstanceDesc>> moe_candidates() {
  std::vector<std::pair<CpuMoeParams, InstanceDesc>> out;
  auto add = [&](const CpuMoeParams& p, int id, bool test) {
    InstanceDesc d;
    d.id = id;
    d.name = kernel_name(p);
    d.family = Family::Moe2Stages;
    d.provider = Provider::CktuneCpu;
    d.backend = BackendKind::Cpu;
    d.params = {{"algo", std::string(to_string(p.algo))}, {"block_m", std::to_string(p.block_m)},
                {"threads", std::to_string(p.threads)}};
    if (test) d.params.emplace_back("bug", std::string(to_string(p.bug)));
    d.test_only = test;
    out.emplace_back(p, std::move(d));
  };
  auto cands = cpu_moe_candidates();
  for (size_t i = 0; i < cands.size(); ++i) add(cands[i], static_cast<int>(i), false);
  const PlantedBug bugs[] = {PlantedBug::CorruptRow, PlantedBug::MissingKTail, PlantedBug::PartialWrite};
  for (int k = 0; k < 3; ++k) {
    CpuMoeParams p{CpuMoeAlgo::ExpertGrouped, 32, 0};
    p.bug = bugs[k];
    add(p, kTestIdBase + k, true);
  }
  return out;
}

Fp8Format fp8_of(const std::string& dtype) {
  return dtype.find("fnuz") != std::string::npos ? Fp8Format::E4M3FNUZ : Fp8Format::E4M3FN;
}

class MoeCpuUnit final : public FamilyUnit {
 public:
  std::vector<InstanceDesc> describe() const override {
    std::vector<InstanceDesc> out;
    for (auto& [p, d] : moe_candidates()) out.push_back(std::move(d));
    return out;
  }
  std::vector<InstancePtr> instances(Backend&) const override {
    std::vector<InstancePtr> out;
    for (auto& [p, d] : moe_candidates()) out.push_back(std::make_unique<MoeCpuInstance>(p, std::move(d)));
    return out;
  }
  std::string default_instance(const ProblemKey&, const Backend&) const override {
    return kernel_name(CpuMoeParams{CpuMoeAlgo::ExpertGrouped, 32, 0});
  }

  std::unique_ptr<Workload> prepare(const ProblemKey& key, const Protocol& protocol, std::uint64_t seed,
                                    Backend& backend, const Reference* reuse) const override {
    const int T = static_cast<int>(key.get_int("token")), D = static_cast<int>(key.get_int("model_dim"));
    const int I = static_cast<int>(key.get_int("inter_dim")), E = static_cast<int>(key.get_int("expert"));
    const int topk = static_cast<int>(key.get_int("topk"));
    const QuantType q = key.get("q_type") == "QuantType.No" ? QuantType::No : QuantType::Per1x128;
    auto act = activation_from_string(key.get("act_type"));
    if (!act) throw Error(fmt::format("activation {} is not implemented", key.get("act_type")));
    const double weight_bytes = 3.0 * E * static_cast<double>(I) * D * (q == QuantType::No ? 2 : 1);
    if (weight_bytes > 4e9) throw Error("MoE weights exceed 4 GB: too large for the CPU backend", "use --device gpu");
    auto wl = std::make_unique<MoeWorkload>(static_cast<size_t>(T) * D);
    wl->params.act = *act;
    wl->params.doweight_stage1 = key.get("doweight_stage1") == "1";
    wl->params.quant = q;
    const auto routing = moe_routing_from_string(protocol.routing);
    if (!routing) throw Error(fmt::format("unknown MoE routing '{}'", protocol.routing), "use uniform or skewed");
    MoeInputs in = make_moe_inputs(T, D, I, E, topk, q, fp8_of(key.get("q_dtype_w")), seed * 1000003ull,
                                   InputDistribution::Signed, 0, *routing);
    // As on the GPU: sized by what one launch reads (the routed experts' weights).
    const int sets = rotation_sets(protocol, backend.device(), backend.policy(), in.touched_bytes(), in.stored_bytes());
    wl->inputs.assign(static_cast<size_t>(sets), in);
    wl->bytes = key.min_bytes(in.experts_reached());
    make_reference(wl->reference, reuse, T, D, 3.0 * topk * static_cast<double>(I) * D, backend.policy(), seed,
                   [&](float* out) { ref_moe_2stages(in, wl->params, out); },
                   [&](const std::vector<std::int64_t>& rows, float* out) {
                     ref_moe_2stages_tokens(in, wl->params, rows, out);
                   });
    return wl;
  }

  std::vector<std::string> tuned_row(const ProblemKey& key, const DeviceInfo& device, const CandidateResult& winner,
                                     const InstanceDesc& desc) const override {
    return moe_single_unit_tuned_row(key, device, winner, desc);
  }
};

}  // namespace

const FamilyUnit& moe_2stages_cpu() {
  static const MoeCpuUnit unit;
  return unit;
}

}  // namespace cktune
