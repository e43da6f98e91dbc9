#include "gpu/gpu_backend.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/core/log.hpp"
#include "cktune/gpu/device.hpp"
#include "cktune/gpu/runtime.hpp"
#include "cktune/numerics/random.hpp"
#include "cktune/ref/gemm.hpp"
#include "gpu/blaslt.hpp"
#include "kernels/a8w8_blockscale/a8w8_blockscale.hpp"
#include "kernels/common/compat.hpp"
#include "kernels/util/util.hpp"

namespace cktune {

namespace bs = kernels::a8w8_blockscale;

namespace {

constexpr int kBlasltSlots = 8;          // blaslt_h0 .. blaslt_h7: the heuristic's i-th algorithm for the shape
constexpr int kBlasltIdBase = 10000;     // kernelIds of the vendor instances
constexpr double kRefMacsBudget = 2e9;   // sampled reference rows are chosen to stay under this

std::string blaslt_name(int i) { return fmt::format("blaslt_h{}", i); }

// One problem's device data: rotation sets of inputs, the output, workspaces, the reference.
struct GpuGemmWorkload final : Workload {
  int M = 0, N = 0, K = 0, m_alloc = 0;
  std::vector<gpu::DeviceBuffer> xq, xs, wq, ws;  // per set
  std::vector<const float*> blaslt_xs, blaslt_ws;  // per set, converted scale layouts
  std::vector<gpu::DeviceBuffer> blaslt_scales;
  gpu::DeviceBuffer y;                             // [m_alloc, N] bf16
  gpu::DeviceBuffer workspace;
  std::optional<gpu::blaslt::Plan> plan;
  std::vector<float> ref;                          // [ref_rows.size(), N] or full
  std::vector<int64_t> ref_rows;                   // empty = full reference
  gpu::GpuStream* stream = nullptr;
  int sets() const override { return static_cast<int>(xq.size()); }
};

class GpuKernelInstance final : public Instance {
 public:
  GpuKernelInstance(const bs::InstanceParams& p, InstanceDesc d, int sm) : Instance(std::move(d)), p_(p), sm_(sm) {}
  std::string why_not(const ProblemKey& key) const override {
    GemmDims g = gemm_dims(key);
    const char* why = bs::why_not(p_, static_cast<int>(g.M), static_cast<int>(g.N), static_cast<int>(g.K), sm_);
    return why ? why : "";
  }
  void launch(Workload& w, int set) override {
    auto& wl = static_cast<GpuGemmWorkload&>(w);
    size_t s = static_cast<size_t>(set);
    bs::Args a{wl.xq[s].as<uint8_t>(), wl.xs[s].as<float>(), wl.wq[s].as<uint8_t>(), wl.ws[s].as<float>(),
               wl.y.as<uint16_t>(), wl.M, wl.N, wl.K, wl.workspace.data(), wl.workspace.size()};
    CKTUNE_GPU_CHECK(bs::launch(p_, a, gpu::as_stream(wl.stream->native())));
  }

 private:
  bs::InstanceParams p_;
  int sm_;
};

class BlasltInstance final : public Instance {
 public:
  BlasltInstance(int slot, InstanceDesc d) : Instance(std::move(d)), slot_(slot) {}
  std::string why_not(const ProblemKey& key) const override {
    const auto& av = gpu::blaslt::available();
    if (!av.ok) return "cuBLASLt unavailable: " + av.reason;
    GemmDims g = gemm_dims(key);
    if (g.K % 128 != 0) return fmt::format("K={} is not a multiple of 128", g.K);
    return {};  // whether the heuristic offers this slot is known once the plan exists (launch reports it)
  }
  void launch(Workload& w, int set) override {
    auto& wl = static_cast<GpuGemmWorkload&>(w);
    if (!wl.plan || slot_ >= static_cast<int>(wl.plan->algos().size()))
      throw NotSupportedError(fmt::format("cuBLASLt's heuristic offers no algorithm #{} for this shape", slot_));
    size_t s = static_cast<size_t>(set);
    gpu::blaslt::Args a{wl.xq[s].as<uint8_t>(), wl.blaslt_xs[s], wl.wq[s].as<uint8_t>(), wl.blaslt_ws[s],
                        wl.y.as<uint16_t>(), wl.workspace.data(), wl.workspace.size()};
    int st = wl.plan->launch(slot_, a, gpu::as_stream(wl.stream->native()));
    if (st != 0) throw Error(fmt::format("cuBLASLt launch failed: {}", gpu::blaslt::Plan::status_string(st)));
  }

 private:
  int slot_;
};

// Events around each launch; a spin kernel first lets the host queue the whole loop, so launch gaps
// on the host side do not show up as kernel time.
class EventTimer final : public Timer {
 public:
  EventTimer(gpu::GpuStream& stream, int clock_khz) : stream_(stream), clock_khz_(clock_khz) {}
  void reserve(int n) override {
    n_ = n;
    while (static_cast<int>(events_.size()) < 2 * n) events_.emplace_back();
    double spin_us = std::clamp(12.0 * n, 1000.0, 20000.0);
    CKTUNE_GPU_CHECK(kernels::util::launch_spin(spin_us, clock_khz_, gpu::as_stream(stream_.native())));
  }
  void begin(int i) override { events_[static_cast<size_t>(2 * i)].record(stream_); }
  void end(int i) override { events_[static_cast<size_t>(2 * i + 1)].record(stream_); }
  std::vector<double> collect_us() override {
    std::vector<double> out;
    if (n_ == 0) return out;
    events_[static_cast<size_t>(2 * n_ - 1)].synchronize();
    CKTUNE_GPU_CHECK(gpu::get_last_error());
    for (int i = 0; i < n_; ++i)
      out.push_back(1000.0 * gpu::GpuEvent::elapsed_ms(events_[static_cast<size_t>(2 * i)],
                                                       events_[static_cast<size_t>(2 * i + 1)]));
    return out;
  }

 private:
  gpu::GpuStream& stream_;
  int clock_khz_;
  int n_ = 0;
  std::vector<gpu::GpuEvent> events_;
};

std::vector<InstanceDesc> blockscale_descs() {
  std::vector<InstanceDesc> out;
  for (const auto& p : bs::instances()) {
    InstanceDesc d;
    d.id = p.id;
    d.name = p.name;
    d.family = Family::A8W8Blockscale;
    d.libtype = "cktune";
    d.backend = "gpu";
    d.split_k = p.split_k;
    d.params = {{"variant", std::string(bs::to_string(p.variant))}, {"tile_m", std::to_string(p.tile_m)},
                {"tile_n", std::to_string(p.tile_n)},               {"tile_k", std::to_string(p.tile_k)},
                {"stages", std::to_string(p.stages)},               {"warps", std::to_string(p.warps)},
                {"split_k", std::to_string(p.split_k)},             {"min_sm", std::to_string(p.min_sm)}};
    out.push_back(std::move(d));
  }
  for (int i = 0; i < kBlasltSlots; ++i) {
    InstanceDesc d;
    d.id = kBlasltIdBase + i;
    d.name = blaslt_name(i);
    d.family = Family::A8W8Blockscale;
    d.libtype = "blaslt";
    d.backend = "gpu";
    d.params = {{"heuristic_rank", std::to_string(i)}};
    out.push_back(std::move(d));
  }
  return out;
}

class GpuBackend final : public Backend {
 public:
  explicit GpuBackend(int index) {
    std::string why;
    auto gpus = gpu::enumerate_gpus(&why);
    if (index < 0 || index >= static_cast<int>(gpus.size()))
      throw GpuError(fmt::format("GPU {} is not visible ({} device(s){})", index, gpus.size(),
                                 why.empty() ? "" : ": " + why),
                     "check CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES and `cktune discover`");
    const auto& g = gpus[static_cast<size_t>(index)];
    gpu::set_device(index);
    auto v = gpu::runtime_versions();
    dev_.backend = "gpu";
    dev_.name = g.name;
    dev_.gfx = g.arch;
    dev_.cu_num = g.cu_num;
    dev_.index = index;
    dev_.driver = v.driver_version;
    dev_.runtime = fmt::format("{} {}", v.backend, v.runtime_version);
    dev_.l2_bytes = g.l2_bytes;
    dev_.memory_bytes = g.memory_total_bytes;
    sm_ = g.compute_major * 10 + g.compute_minor;
    clock_khz_ = g.sm_clock_khz;
    stream_ = std::make_unique<gpu::GpuStream>();
  }
  const DeviceInfo& device() const override { return dev_; }
  std::vector<Family> families() const override { return {Family::A8W8Blockscale}; }

  std::vector<InstancePtr> instances(Family family) const override {
    std::vector<InstancePtr> out;
    if (family != Family::A8W8Blockscale) return out;
    auto descs = blockscale_descs();
    auto params = bs::instances();
    for (size_t i = 0; i < descs.size(); ++i) {
      if (i < params.size()) out.push_back(std::make_unique<GpuKernelInstance>(params[i], descs[i], sm_));
      else out.push_back(std::make_unique<BlasltInstance>(static_cast<int>(i - params.size()), descs[i]));
    }
    return out;
  }

  std::string default_instance(const ProblemKey& key) const override {
    if (key.family != Family::A8W8Blockscale) return {};
    GemmDims g = gemm_dims(key);
    int i = bs::default_instance(static_cast<int>(g.M), static_cast<int>(g.N), static_cast<int>(g.K), dev_.cu_num, sm_);
    return bs::instances()[static_cast<size_t>(i)].name;
  }
  std::string baseline_instance(const ProblemKey& key) const override {
    if (key.family != Family::A8W8Blockscale || !gpu::blaslt::available().ok) return {};
    return blaslt_name(0);
  }

  std::unique_ptr<Workload> prepare(const ProblemKey& key, const Protocol& protocol,
                                    std::uint64_t seed) const override {
    if (key.family != Family::A8W8Blockscale)
      throw Error(fmt::format("the GPU backend has no {} kernels yet", family_name(key.family)),
                  "use --device cpu for this family");
    GemmDims g = gemm_dims(key);
    auto wl = std::make_unique<GpuGemmWorkload>();
    wl->M = static_cast<int>(g.M);
    wl->N = static_cast<int>(g.N);
    wl->K = static_cast<int>(g.K);
    wl->stream = stream_.get();
    if (g.K % 128 != 0) throw Error(fmt::format("K={} is not a multiple of 128", g.K));
    const bool use_blaslt = gpu::blaslt::available().ok;
    if (use_blaslt) wl->plan = gpu::blaslt::Plan::create(wl->M, wl->N, wl->K, kBlasltSlots);
    wl->m_alloc = wl->plan ? std::max(wl->M, wl->plan->padded_m()) : wl->M;
    const size_t kb = static_cast<size_t>(g.K / 128), nb = static_cast<size_t>((g.N + 127) / 128);
    const size_t x_bytes = static_cast<size_t>(wl->m_alloc) * g.K, w_bytes = static_cast<size_t>(g.N) * g.K;
    const size_t xs_bytes = static_cast<size_t>(wl->m_alloc) * kb * 4, ws_bytes = nb * kb * 4;
    // Rotation: enough sets that one pass over them exceeds the L2 twice, so weights come from HBM.
    double per_set = static_cast<double>(x_bytes + w_bytes + xs_bytes + ws_bytes);
    int sets = protocol.rotate > 0 ? protocol.rotate
                                   : std::clamp(static_cast<int>(std::ceil(2.0 * dev_.l2_bytes / per_set)) + 1, 2, 32);
    sets = std::max(1, std::min(sets, static_cast<int>(std::max(1.0, 16e9 / per_set))));

    // Fresh random inputs (signed values, never zeros) for set 0; the other sets hold copies at other
    // addresses: rotation is about where the data lives, not what it is.
    BlockscaleGemmInputs in = make_blockscale_inputs(wl->M, wl->N, wl->K, Fp8Format::E4M3FN, seed);
    std::vector<uint8_t> xq_host(x_bytes, 0);
    std::memcpy(xq_host.data(), in.xq.data(), in.xq.size());
    std::vector<float> xs_host(static_cast<size_t>(wl->m_alloc) * kb, 1.0f);
    std::memcpy(xs_host.data(), in.x_scale.data(), in.x_scale.size() * 4);
    for (int s = 0; s < sets; ++s) {
      wl->xq.emplace_back(x_bytes);
      wl->xs.emplace_back(xs_bytes);
      wl->wq.emplace_back(w_bytes);
      wl->ws.emplace_back(ws_bytes);
      wl->xq.back().copy_from_host(xq_host.data(), x_bytes, *stream_);
      wl->xs.back().copy_from_host(xs_host.data(), xs_bytes, *stream_);
      wl->wq.back().copy_from_host(in.wq.data(), w_bytes, *stream_);
      wl->ws.back().copy_from_host(in.w_scale.data(), ws_bytes, *stream_);
    }
    wl->y = gpu::DeviceBuffer(static_cast<size_t>(wl->m_alloc) * g.N * 2);
    size_t work = 0;
    for (const auto& p : bs::instances())
      if (!bs::why_not(p, wl->M, wl->N, wl->K, sm_)) work = std::max(work, bs::workspace_bytes(p, wl->M, wl->N, wl->K));
    if (wl->plan && !wl->plan->algos().empty()) {
      work = std::max(work, wl->plan->max_workspace_bytes());
      for (int s = 0; s < sets; ++s) {
        wl->blaslt_scales.emplace_back(std::max<size_t>(wl->plan->scale_bytes(), 256));
        const float *xs_t = nullptr, *ws_out = nullptr;
        CKTUNE_GPU_CHECK(wl->plan->convert_scales(wl->xs[s].as<float>(), wl->ws[s].as<float>(),
                                                  wl->blaslt_scales.back().data(), gpu::as_stream(stream_->native()),
                                                  &xs_t, &ws_out));
        wl->blaslt_xs.push_back(xs_t);
        wl->blaslt_ws.push_back(ws_out);
      }
    }
    wl->workspace = gpu::DeviceBuffer(std::max<size_t>(work, 256));
    CKTUNE_GPU_CHECK(bs::prepare_workspace(wl->workspace.data(), wl->workspace.size(), gpu::as_stream(stream_->native())));

    // Reference on the CPU: every row when affordable, else rows sampled over M (first and last included).
    double macs = static_cast<double>(g.M) * g.N * g.K;
    if (macs <= kRefMacsBudget) {
      wl->ref.resize(static_cast<size_t>(g.M) * g.N);
      ref_a8w8_blockscale(in, wl->ref.data());
    } else {
      int64_t rows = std::clamp<int64_t>(static_cast<int64_t>(kRefMacsBudget / (static_cast<double>(g.N) * g.K)), 8, 64);
      wl->ref_rows = sample_rows(g.M, std::min<int64_t>(rows, g.M), seed);
      wl->ref.resize(wl->ref_rows.size() * static_cast<size_t>(g.N));
      ref_a8w8_blockscale_rows(in, wl->ref_rows, wl->ref.data());
    }
    stream_->synchronize();
    return wl;
  }

  CheckResult verify(Instance& instance, Workload& w, const Tolerance& tol) const override {
    auto& wl = static_cast<GpuGemmWorkload&>(w);
    size_t n = static_cast<size_t>(wl.M) * wl.N;
    CKTUNE_GPU_CHECK(kernels::util::launch_fill_u16(wl.y.as<uint16_t>(), static_cast<size_t>(wl.m_alloc) * wl.N,
                                                    kPoisonBf16Bits, gpu::as_stream(stream_->native())));
    instance.launch(w, 0);
    std::vector<uint16_t> out(n);
    wl.y.copy_to_host(out.data(), n * 2, *stream_);  // synchronises: a fault surfaces here
    if (wl.ref_rows.empty()) return check_output(wl.ref.data(), out.data(), wl.M, wl.N, tol);
    return check_output_rows(wl.ref.data(), out.data(), wl.ref_rows, wl.M, wl.N, tol);
  }

  std::unique_ptr<Timer> make_timer(Workload&) const override {
    return std::make_unique<EventTimer>(*stream_, clock_khz_);
  }

  void inject_fault(Workload& w, FaultKind kind) const override {
    auto& wl = static_cast<GpuGemmWorkload&>(w);
    auto s = gpu::as_stream(stream_->native());
    size_t n = static_cast<size_t>(wl.M) * wl.N;
    if (kind == FaultKind::Hang) {
      CKTUNE_GPU_CHECK(kernels::util::launch_hang(s));
      stream_->synchronize();  // never returns: the watchdog ends the process
    } else if (kind == FaultKind::Wrong) {
      CKTUNE_GPU_CHECK(kernels::util::launch_corrupt_bf16(wl.y.as<uint16_t>(), n, s));
    } else if (kind == FaultKind::Partial) {
      size_t keep = n * 3 / 4;
      CKTUNE_GPU_CHECK(kernels::util::launch_fill_u16(wl.y.as<uint16_t>() + keep, n - keep, kPoisonBf16Bits, s));
    }
  }

 private:
  DeviceInfo dev_;
  int sm_ = 90;
  int clock_khz_ = 0;
  std::unique_ptr<gpu::GpuStream> stream_;
};

}  // namespace

std::vector<InstanceDesc> gpu_instance_descs(Family family) {
  if (family != Family::A8W8Blockscale) return {};
  return blockscale_descs();
}

std::unique_ptr<Backend> make_gpu_backend(int device_index) { return std::make_unique<GpuBackend>(device_index); }

}  // namespace cktune
