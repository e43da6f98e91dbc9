#include "backends/cpu_backend.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/cpu/gemm_kernels.hpp"
#include "cktune/cpu/moe_kernels.hpp"
#include "cktune/numerics/bf16.hpp"
#include "cktune/numerics/quant.hpp"
#include "cktune/numerics/random.hpp"
#include "cktune/ref/gemm.hpp"
#include "cktune/ref/moe.hpp"

namespace cktune {

namespace {

constexpr int kTestIdBase = 1000;  // kernelIds of the planted wrong instances
// Beyond this many multiply-adds the reference is computed on sampled rows only (docs/arch/numerics.md).
constexpr double kFullRefMacs = 3e8;
constexpr int64_t kSampledRows = 64;

bool is_blockscale(Family f) { return f == Family::A8W8Blockscale || f == Family::A8W8BlockscaleBpreshuffle; }

std::vector<std::pair<PlantedBug, int>> planted() {
  return {{PlantedBug::CorruptRow, 0}, {PlantedBug::MissingKTail, 1}, {PlantedBug::PartialWrite, 2}};
}

std::vector<std::pair<CpuBlockscaleParams, InstanceDesc>> blockscale_instances(Family family) {
  std::vector<std::pair<CpuBlockscaleParams, InstanceDesc>> out;
  auto add = [&](const CpuBlockscaleParams& p, int id, bool test) {
    InstanceDesc d;
    d.id = id;
    d.name = kernel_name(p);
    d.family = family;
    d.libtype = "cktune_cpu";
    d.backend = "cpu";
    d.split_k = p.algo == CpuGemmAlgo::SplitK ? p.split_k : 1;
    d.params = {{"algo", std::string(to_string(p.algo))}, {"tile_m", std::to_string(p.tile_m)},
                {"tile_n", std::to_string(p.tile_n)},    {"split_k", std::to_string(d.split_k)},
                {"threads", std::to_string(p.threads)},  {"pack", p.pack ? "1" : "0"}};
    if (test) d.params.emplace_back("bug", std::string(to_string(p.bug)));
    d.test_only = test;
    out.emplace_back(p, std::move(d));
  };
  auto cands = cpu_blockscale_candidates();
  for (size_t i = 0; i < cands.size(); ++i) add(cands[i], static_cast<int>(i), false);
  // Planted wrong kernels (testing only): one per bug, on a fast honest base so they would win on speed.
  for (auto [bug, k] : planted()) {
    CpuBlockscaleParams p{CpuGemmAlgo::Tiled, 16, 64, 1, 0};
    p.bug = bug;
    add(p, kTestIdBase + k, true);
  }
  return out;
}

std::vector<std::pair<CpuMoeParams, InstanceDesc>> moe_instances() {
  std::vector<std::pair<CpuMoeParams, InstanceDesc>> out;
  auto add = [&](const CpuMoeParams& p, int id, bool test) {
    InstanceDesc d;
    d.id = id;
    d.name = kernel_name(p);
    d.family = Family::Moe2Stages;
    d.libtype = "cktune_cpu";
    d.backend = "cpu";
    d.params = {{"algo", std::string(to_string(p.algo))}, {"block_m", std::to_string(p.block_m)},
                {"threads", std::to_string(p.threads)}};
    if (test) d.params.emplace_back("bug", std::string(to_string(p.bug)));
    d.test_only = test;
    out.emplace_back(p, std::move(d));
  };
  auto cands = cpu_moe_candidates();
  for (size_t i = 0; i < cands.size(); ++i) add(cands[i], static_cast<int>(i), false);
  for (auto [bug, k] : planted()) {
    CpuMoeParams p{CpuMoeAlgo::ExpertGrouped, 32, 0};
    p.bug = bug;
    add(p, kTestIdBase + k, true);
  }
  return out;
}

// ------------------------------------------------------------------ workloads

struct CpuGemmWorkload final : Workload {
  std::vector<BlockscaleGemmInputs> inputs;  // rotation sets
  std::vector<std::vector<uint8_t>> wq_shuffled;
  std::vector<std::vector<float>> xs_t;
  std::vector<BlockscaleGemmView> views;
  std::vector<uint16_t> out;                 // [M, N] bf16
  std::vector<float> ref;                    // full [M, N] or [rows, N]
  std::vector<int64_t> ref_rows;             // empty = full reference
  int sets() const override { return static_cast<int>(views.size()); }
};

struct CpuMoeWorkload final : Workload {
  std::vector<MoeInputs> inputs;
  MoeParams params;
  std::vector<uint16_t> out;                 // [T, model_dim] bf16
  std::vector<float> ref;
  std::vector<int64_t> ref_rows;
  int sets() const override { return static_cast<int>(inputs.size()); }
};

class CpuGemmInstance final : public Instance {
 public:
  CpuGemmInstance(CpuBlockscaleParams p, InstanceDesc d) : Instance(std::move(d)), p_(p) {}
  std::string why_not(const ProblemKey& key) const override {
    GemmDims g = gemm_dims(key);
    if (g.K % 128 != 0) return fmt::format("K={} is not a multiple of 128", g.K);
    bool shuffled = key.family == Family::A8W8BlockscaleBpreshuffle;
    if (!can_run(p_, static_cast<int>(g.M), static_cast<int>(g.N), static_cast<int>(g.K), shuffled))
      return "this blocking does not fit the shape";
    return {};
  }
  void launch(Workload& w, int set) override {
    auto& wl = static_cast<CpuGemmWorkload&>(w);
    cpu_a8w8_blockscale(p_, wl.views[static_cast<size_t>(set)], wl.out.data());
  }

 private:
  CpuBlockscaleParams p_;
};

class CpuMoeInstance final : public Instance {
 public:
  CpuMoeInstance(CpuMoeParams p, InstanceDesc d) : Instance(std::move(d)), p_(p) {}
  std::string why_not(const ProblemKey& key) const override {
    if (key.get("use_g1u1") != "1") return "only g1u1 (gate and up fused) is implemented";
    const std::string& q = key.get("q_type");
    if (q != "QuantType.per_1x128" && q != "QuantType.No") return fmt::format("{} is not implemented on the CPU", q);
    if (!activation_from_string(key.get("act_type"))) return fmt::format("{} is not implemented", key.get("act_type"));
    return {};
  }
  void launch(Workload& w, int set) override {
    auto& wl = static_cast<CpuMoeWorkload&>(w);
    cpu_moe_2stages(p_, wl.inputs[static_cast<size_t>(set)], wl.params, wl.out.data());
  }

 private:
  CpuMoeParams p_;
};

class SteadyTimer final : public Timer {
 public:
  void reserve(int n) override {
    begin_.assign(static_cast<size_t>(n), {});
    end_.assign(static_cast<size_t>(n), {});
  }
  void begin(int i) override { begin_[static_cast<size_t>(i)] = std::chrono::steady_clock::now(); }
  void end(int i) override { end_[static_cast<size_t>(i)] = std::chrono::steady_clock::now(); }
  std::vector<double> collect_us() override {
    std::vector<double> out;
    for (size_t i = 0; i < begin_.size(); ++i)
      out.push_back(std::chrono::duration<double, std::micro>(end_[i] - begin_[i]).count());
    return out;
  }

 private:
  std::vector<std::chrono::steady_clock::time_point> begin_, end_;
};

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "CPU";
}

std::uint64_t last_level_cache_bytes() {
  std::uint64_t best = 0;
  for (int i = 0; i < 8; ++i) {
    std::ifstream in(fmt::format("/sys/devices/system/cpu/cpu0/cache/index{}/size", i));
    std::string s;
    if (!(in >> s)) continue;
    std::uint64_t v = std::strtoull(s.c_str(), nullptr, 10);
    if (!s.empty() && (s.back() == 'K')) v <<= 10;
    if (!s.empty() && (s.back() == 'M')) v <<= 20;
    best = std::max(best, v);
  }
  return best > 0 ? best : (32u << 20);
}

Fp8Format fp8_of(const std::string& dtype) {
  return dtype.find("fnuz") != std::string::npos ? Fp8Format::E4M3FNUZ : Fp8Format::E4M3FN;
}

class CpuBackend final : public Backend {
 public:
  CpuBackend() {
    dev_.backend = "cpu";
    dev_.name = cpu_model_name();
    dev_.gfx = "cpu";
    dev_.cu_num = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    struct utsname u {};
    if (::uname(&u) == 0) dev_.driver = fmt::format("linux {}", u.release);
    dev_.runtime = "host";
    dev_.l2_bytes = last_level_cache_bytes();
  }
  const DeviceInfo& device() const override { return dev_; }

  std::vector<Family> families() const override {
    return {Family::A8W8Blockscale, Family::A8W8BlockscaleBpreshuffle, Family::Moe2Stages};
  }

  std::vector<InstancePtr> instances(Family family) const override {
    std::vector<InstancePtr> out;
    if (is_blockscale(family))
      for (auto& [p, d] : blockscale_instances(family)) out.push_back(std::make_unique<CpuGemmInstance>(p, d));
    if (family == Family::Moe2Stages)
      for (auto& [p, d] : moe_instances()) out.push_back(std::make_unique<CpuMoeInstance>(p, d));
    return out;
  }

  // Untuned default: one blocking for every shape, all threads (what a runtime without a table runs).
  std::string default_instance(const ProblemKey& key) const override {
    if (is_blockscale(key.family)) return kernel_name(CpuBlockscaleParams{CpuGemmAlgo::Tiled, 16, 64, 1, 0});
    if (key.family == Family::Moe2Stages) return kernel_name(CpuMoeParams{CpuMoeAlgo::ExpertGrouped, 32, 0});
    return {};
  }
  std::string baseline_instance(const ProblemKey&) const override { return {}; }

  std::unique_ptr<Workload> prepare(const ProblemKey& key, const Protocol& protocol,
                                    std::uint64_t seed) const override {
    if (is_blockscale(key.family)) return prepare_gemm(key, protocol, seed);
    if (key.family == Family::Moe2Stages) return prepare_moe(key, protocol, seed);
    throw Error(fmt::format("the CPU backend has no {} implementation", family_name(key.family)));
  }

  CheckResult verify(Instance& instance, Workload& w, const Tolerance& tol) const override {
    if (auto* g = dynamic_cast<CpuGemmWorkload*>(&w)) {
      poison_nan(g->out.data(), static_cast<int64_t>(g->out.size()));
      instance.launch(w, 0);
      const auto& in = g->inputs[0];
      if (g->ref_rows.empty()) return check_output(g->ref.data(), g->out.data(), in.M, in.N, tol);
      return check_output_rows(g->ref.data(), g->out.data(), g->ref_rows, in.M, in.N, tol);
    }
    auto& m = static_cast<CpuMoeWorkload&>(w);
    poison_nan(m.out.data(), static_cast<int64_t>(m.out.size()));
    instance.launch(w, 0);
    const auto& in = m.inputs[0];
    if (m.ref_rows.empty()) return check_output(m.ref.data(), m.out.data(), in.tokens, in.model_dim, tol);
    return check_output_rows(m.ref.data(), m.out.data(), m.ref_rows, in.tokens, in.model_dim, tol);
  }

  std::unique_ptr<Timer> make_timer(Workload&) const override { return std::make_unique<SteadyTimer>(); }

  void inject_fault(Workload& w, FaultKind kind) const override {
    if (kind == FaultKind::Hang)
      for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));  // a kernel that never returns
    std::vector<uint16_t>& out = dynamic_cast<CpuGemmWorkload*>(&w) ? static_cast<CpuGemmWorkload&>(w).out
                                                                    : static_cast<CpuMoeWorkload&>(w).out;
    if (kind == FaultKind::Wrong) {
      // Plausible-looking garbage: scale every third value, the way a wrong scale index would.
      for (size_t i = 0; i < out.size(); i += 3) out[i] = float_to_bf16(bf16_to_float(out[i]) * 1.75f + 0.5f);
    } else if (kind == FaultKind::Partial) {
      // The last quarter of the output is never written.
      poison_nan(out.data() + out.size() * 3 / 4, static_cast<int64_t>(out.size() - out.size() * 3 / 4));
    }
  }

 private:
  int rotation_sets(const Protocol& p, double bytes_per_set) const {
    if (p.rotate > 0) return p.rotate;
    int sets = static_cast<int>(std::ceil(2.0 * static_cast<double>(dev_.l2_bytes) / std::max(1.0, bytes_per_set)));
    int by_memory = static_cast<int>(std::max(1.0, 1.0e9 / std::max(1.0, bytes_per_set)));
    return std::clamp(std::min(sets, by_memory), 2, 8);
  }

  std::unique_ptr<Workload> prepare_gemm(const ProblemKey& key, const Protocol& protocol, std::uint64_t seed) const {
    GemmDims g = gemm_dims(key);
    if (g.M > (1 << 20) || g.N > (1 << 20) || g.K > (1 << 20)) throw Error("shape too large for the CPU backend");
    auto wl = std::make_unique<CpuGemmWorkload>();
    int M = static_cast<int>(g.M), N = static_cast<int>(g.N), K = static_cast<int>(g.K);
    const bool shuffled = key.family == Family::A8W8BlockscaleBpreshuffle;
    int sets = rotation_sets(protocol, static_cast<double>(M + N) * K);
    for (int s = 0; s < sets; ++s)
      wl->inputs.push_back(make_blockscale_inputs(M, N, K, Fp8Format::E4M3FN, seed * 1000003ull + static_cast<unsigned>(s)));
    for (auto& in : wl->inputs) {
      BlockscaleGemmView v = view_of(in);
      if (shuffled && can_preshuffle(N, K)) {
        wl->wq_shuffled.push_back(preshuffle_weight(in.wq.data(), N, K));
        wl->xs_t.push_back(transpose(in.x_scale.data(), M, in.k_blocks()));
      }
      wl->views.push_back(v);
    }
    if (shuffled && !wl->wq_shuffled.empty())
      for (size_t s = 0; s < wl->views.size(); ++s) {
        wl->views[s].wq = wl->wq_shuffled[s].data();
        wl->views[s].w_preshuffled = true;
        wl->views[s].x_scale = wl->xs_t[s].data();
        wl->views[s].x_scale_transposed = true;
      }
    wl->out.assign(static_cast<size_t>(M) * N, 0);
    if (static_cast<double>(M) * N * K <= kFullRefMacs || M <= kSampledRows) {
      wl->ref.resize(static_cast<size_t>(M) * N);
      ref_a8w8_blockscale(wl->inputs[0], wl->ref.data());
    } else {
      wl->ref_rows = sample_rows(M, kSampledRows, seed);
      wl->ref.resize(wl->ref_rows.size() * static_cast<size_t>(N));
      ref_a8w8_blockscale_rows(wl->inputs[0], wl->ref_rows, wl->ref.data());
    }
    return wl;
  }

  std::unique_ptr<Workload> prepare_moe(const ProblemKey& key, const Protocol& protocol, std::uint64_t seed) const {
    auto wl = std::make_unique<CpuMoeWorkload>();
    int T = static_cast<int>(key.get_int("token")), D = static_cast<int>(key.get_int("model_dim"));
    int I = static_cast<int>(key.get_int("inter_dim")), E = static_cast<int>(key.get_int("expert"));
    int topk = static_cast<int>(key.get_int("topk"));
    QuantType q = key.get("q_type") == "QuantType.No" ? QuantType::No : QuantType::Per1x128;
    Fp8Format fmt = fp8_of(key.get("q_dtype_w"));
    auto act = activation_from_string(key.get("act_type"));
    if (!act) throw Error(fmt::format("activation {} is not implemented", key.get("act_type")));
    wl->params.act = *act;
    wl->params.doweight_stage1 = key.get("doweight_stage1") == "1";
    wl->params.quant = q;
    double weight_bytes = 3.0 * E * static_cast<double>(I) * D * (q == QuantType::No ? 2 : 1);
    if (weight_bytes > 4e9) throw Error("MoE weights exceed 4 GB: too large for the CPU backend");
    int sets = protocol.rotate > 0 ? protocol.rotate : (weight_bytes > 2.0 * static_cast<double>(dev_.l2_bytes) ? 1 : 2);
    for (int s = 0; s < sets; ++s)
      wl->inputs.push_back(make_moe_inputs(T, D, I, E, topk, q, fmt, seed * 1000003ull + static_cast<unsigned>(s)));
    wl->out.assign(static_cast<size_t>(T) * D, 0);
    double macs = 3.0 * T * topk * static_cast<double>(I) * D;
    if (macs <= kFullRefMacs || T <= kSampledRows) {
      wl->ref.resize(static_cast<size_t>(T) * D);
      ref_moe_2stages(wl->inputs[0], wl->params, wl->ref.data());
    } else {
      wl->ref_rows = sample_rows(T, kSampledRows, seed);
      wl->ref.resize(wl->ref_rows.size() * static_cast<size_t>(D));
      ref_moe_2stages_tokens(wl->inputs[0], wl->params, wl->ref_rows, wl->ref.data());
    }
    return wl;
  }

  DeviceInfo dev_;
};

}  // namespace

std::vector<InstanceDesc> cpu_instance_descs(Family family) {
  std::vector<InstanceDesc> out;
  if (is_blockscale(family))
    for (auto& [p, d] : blockscale_instances(family)) out.push_back(d);
  if (family == Family::Moe2Stages)
    for (auto& [p, d] : moe_instances()) out.push_back(d);
  return out;
}

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace cktune
