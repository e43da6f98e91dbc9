// The FP8 GEMM families on the GPU (a8w8_blockscale, a8w8, a8w8_bpreshuffle): cktune's hand-written
// kernel instances (kernels/a8w8_blockscale, one table per scaling) and the vendor library (cuBLASLt
// with block or outer-vector scales) as candidates. The three units differ only in their inputs, scale
// layouts and reference (GpuGemmKind below).
#include "families/common/gpu_gemm.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/core/log.hpp"
#include "cktune/engine/family_unit.hpp"
#include "cktune/engine/policy.hpp"
#include "cktune/engine/tuned_row.hpp"
#include "cktune/gpu/runtime.hpp"
#include "cktune/numerics/quant.hpp"
#include "cktune/numerics/random.hpp"
#include "cktune/ref/gemm.hpp"
#include "gpu/blaslt.hpp"
#include "backends/gpu_backend.hpp"
#include "kernels/a8w8_blockscale/a8w8_blockscale.hpp"
#include "kernels/common/compat.hpp"

namespace cktune {

namespace bs = kernels::a8w8_blockscale;

namespace {

// What differs between the three families.
struct GpuGemmKind {
  Family family;
  bs::Scaling scaling;       // fp8 e4m3fn keys
  bs::Scaling int8_scaling;  // torch.int8 keys (the per-token families only)
  gpu::blaslt::Scaling vendor_scaling;
  bool block_scales() const { return scaling == bs::Scaling::Block128; }
  bool preshuffled() const { return scaling == bs::Scaling::PerTokenPreshuffledW; }
  bool has_int8() const { return !block_scales(); }
};

GpuGemmKind kind_of(Family f) {
  using S = bs::Scaling;
  switch (f) {
    case Family::A8W8Blockscale: return {f, S::Block128, S::Block128, gpu::blaslt::Scaling::Block128};
    case Family::A8W8: return {f, S::PerToken, S::PerTokenI8, gpu::blaslt::Scaling::OuterVector};
    case Family::A8W8Bpreshuffle:
      return {f, S::PerTokenPreshuffledW, S::PerTokenI8PreshuffledW, gpu::blaslt::Scaling::OuterVector};
    default: break;
  }
  throw std::logic_error(fmt::format("no GPU GEMM unit for family {}", family_name(f)));
}

// kernelIds of the int8 tables' instances: their table index plus this.
constexpr int kInt8IdBase = 1000;

// a8w8 keys name their dtype: fp8 e4m3fn (the dtype of the H100/H200 and of gfx950) and int8 run on the
// GPU, e4m3fnuz (MI300's) only on the CPU backend. Returns the key's dtype, or nullopt with `why` set.
std::optional<QDtype> key_dtype(const GpuGemmKind& kind, const ProblemKey& key, std::string* why) {
  if (kind.block_scales()) return QDtype::Fp8E4M3FN;
  const std::string d = key.get("q_dtype_w");
  const auto q = qdtype_from_string(d);
  if (q && (*q == QDtype::Fp8E4M3FN || *q == QDtype::Int8)) return q;
  if (why)
    *why = fmt::format("q_dtype_w {}: the GPU kernels take torch.float8_e4m3fn and torch.int8 (the CPU backend runs {})",
                       d.empty() ? "(missing)" : d, d.empty() ? "every dtype" : d);
  return std::nullopt;
}

// Why an instance of `scaling`'s table cannot run the key's dtype ("" = it can).
std::string dtype_why_not(const GpuGemmKind& kind, const ProblemKey& key, bs::Scaling scaling) {
  std::string why;
  const auto q = key_dtype(kind, key, &why);
  if (!q) return why;
  if ((*q == QDtype::Int8) != bs::is_int8(scaling))
    return *q == QDtype::Int8 ? "an fp8 instance: this key is torch.int8" : "an int8 instance: this key is fp8";
  return {};
}

bs::Scaling scaling_for(const GpuGemmKind& kind, const ProblemKey& key) {
  const auto q = key_dtype(kind, key, nullptr);
  return q && *q == QDtype::Int8 ? kind.int8_scaling : kind.scaling;
}

// The kernel instances of a family in describe() order: the fp8 table, then the int8 one.
std::vector<bs::InstanceParams> kernel_params(const GpuGemmKind& kind) {
  auto fp8 = bs::instances(kind.scaling);
  std::vector<bs::InstanceParams> out(fp8.begin(), fp8.end());
  if (kind.has_int8())
    for (const auto& p : bs::instances(kind.int8_scaling)) out.push_back(p);
  return out;
}

constexpr int kBlasltSlots = 8;       // blaslt_h0 .. blaslt_h7: the heuristic's i-th algorithm for the shape
constexpr int kBlasltIdBase = 10000;  // kernelIds of the vendor instances

std::string blaslt_name(int i) { return fmt::format("blaslt_h{}", i); }

// One problem's device data. Our kernels' scratch (split-K partials and tile counters of the portable
// epilogue; empty on NVIDIA, where split-K reduces in a cluster) and the vendor library's workspace are
// separate buffers: a library algorithm may leave anything in its workspace, and counters that another
// candidate scribbled over would make split-K kernels skip their reduction.
struct GpuGemmWorkload final : Workload {
  int M = 0, N = 0, K = 0, m_alloc = 0;
  std::vector<gpu::DeviceBuffer> xq, xs, wq, ws;  // per set (copies of one set at other addresses)
  std::vector<gpu::DeviceBuffer> wq_plain;        // preshuffled family: row-major W for the vendor library
  std::vector<const float*> blaslt_xs, blaslt_ws;  // per set, converted scale layouts
  std::vector<gpu::DeviceBuffer> blaslt_scales;
  std::optional<DeviceOutput> y;                   // [m_alloc, N] bf16
  gpu::DeviceBuffer scratch;                       // cktune kernels only
  gpu::DeviceBuffer blaslt_workspace;              // cuBLASLt only
  std::optional<gpu::blaslt::Plan> plan;
  GpuBackend* backend = nullptr;
  int sets() const override { return static_cast<int>(xq.size()); }
  OutputBuffer& output() override { return *y; }
  gpu::Stream stream() const { return gpu::as_stream(backend->stream().native()); }
};

class KernelInstance final : public Instance {
 public:
  KernelInstance(const GpuGemmKind& kind, const bs::InstanceParams& p, InstanceDesc d, int sm)
      : Instance(std::move(d)), kind_(kind), p_(p), sm_(sm) {}
  std::string why_not(const ProblemKey& key) const override {
    if (std::string why = dtype_why_not(kind_, key, p_.scaling); !why.empty()) return why;
    GemmDims g = gemm_dims(key);
    const char* why = bs::why_not(p_, static_cast<int>(g.M), static_cast<int>(g.N), static_cast<int>(g.K), sm_);
    return why ? why : "";
  }
  std::string redundant(const ProblemKey& key) const override {
    GemmDims g = gemm_dims(key);
    const char* why = bs::redundant_with(p_, static_cast<int>(g.M), static_cast<int>(g.N), static_cast<int>(g.K));
    return why ? why : "";
  }
  void launch(Workload& w, int set) override {
    auto& wl = static_cast<GpuGemmWorkload&>(w);
    size_t s = static_cast<size_t>(set);
    bs::Args a{wl.xq[s].as<uint8_t>(), wl.xs[s].as<float>(), wl.wq[s].as<uint8_t>(), wl.ws[s].as<float>(),
               wl.y->data(), wl.M, wl.N, wl.K, wl.scratch.data(), wl.scratch.size()};
    CKTUNE_GPU_CHECK(bs::launch(p_, a, wl.stream()));
  }

 private:
  GpuGemmKind kind_;
  bs::InstanceParams p_;
  int sm_;
};

class BlasltInstance final : public Instance {
 public:
  BlasltInstance(const GpuGemmKind& kind, int slot, InstanceDesc d) : Instance(std::move(d)), kind_(kind), slot_(slot) {}
  std::string why_not(const ProblemKey& key) const override {
    std::string why;
    const auto dtype = key_dtype(kind_, key, &why);
    if (!dtype) return why;
    if (*dtype == QDtype::Int8) return "cktune's cuBLASLt baseline is fp8 only (its outer-vector scale mode is an FP8 feature)";
    const auto& av = gpu::blaslt::available();
    if (!av.ok) return "cuBLASLt unavailable: " + av.reason;
    GemmDims g = gemm_dims(key);
    if (kind_.block_scales() && g.K % 128 != 0) return fmt::format("K={} is not a multiple of 128", g.K);
    if (g.K % 16 != 0) return fmt::format("K={} is not a multiple of 16", g.K);
    return {};  // whether the heuristic offers this slot is known once the plan exists (launch reports it)
  }
  void launch(Workload& w, int set) override {
    auto& wl = static_cast<GpuGemmWorkload&>(w);
    if (!wl.plan || slot_ >= static_cast<int>(wl.plan->algos().size()))
      throw NotSupportedError(fmt::format("cuBLASLt's heuristic offers no algorithm #{} for this shape", slot_));
    size_t s = static_cast<size_t>(set);
    gpu::DeviceBuffer& work = wl.blaslt_workspace;
    const gpu::DeviceBuffer& weights = wl.wq_plain.empty() ? wl.wq[s] : wl.wq_plain[s];
    gpu::blaslt::Args a{wl.xq[s].as<uint8_t>(), wl.blaslt_xs[s], weights.as<uint8_t>(), wl.blaslt_ws[s],
                        wl.y->data(), work.data(), work.size()};
    int st = wl.plan->launch(slot_, a, wl.stream());
    if (st != 0) throw Error(fmt::format("cuBLASLt launch failed: {}", gpu::blaslt::Plan::status_string(st)));
  }

 private:
  GpuGemmKind kind_;
  int slot_;
};

std::vector<InstanceDesc> descriptions(const GpuGemmKind& kind) {
  std::vector<InstanceDesc> out;
  for (const auto& p : kernel_params(kind)) {
    InstanceDesc d;
    d.id = p.id + (bs::is_int8(p.scaling) ? kInt8IdBase : 0);
    d.name = p.name;
    d.family = kind.family;
    d.provider = Provider::Cktune;
    d.backend = BackendKind::Gpu;
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
    d.family = kind.family;
    d.provider = Provider::Blaslt;
    d.backend = BackendKind::Gpu;
    d.params = {{"heuristic_rank", std::to_string(i)}};
    // cuBLASLt cannot read AITER's preshuffled weights: it runs on a row-major copy, as the vendor
    // baseline of bench, and is never a tuning candidate (a table row naming it could not run).
    if (kind.preshuffled()) {
      d.baseline_only = true;
      d.params.emplace_back("weights", "row-major copy");
    }
    out.push_back(std::move(d));
  }
  return out;
}

class GpuGemmUnit final : public FamilyUnit {
 public:
  explicit GpuGemmUnit(GpuGemmKind kind) : kind_(kind) {}
  std::vector<InstanceDesc> describe() const override { return descriptions(kind_); }

  std::vector<InstancePtr> instances(Backend& backend) const override {
    const int sm = static_cast<GpuBackend&>(backend).sm();
    std::vector<InstancePtr> out;
    auto descs = descriptions(kind_);
    auto params = kernel_params(kind_);
    for (size_t i = 0; i < descs.size(); ++i) {
      if (i < params.size()) out.push_back(std::make_unique<KernelInstance>(kind_, params[i], descs[i], sm));
      else out.push_back(std::make_unique<BlasltInstance>(kind_, static_cast<int>(i - params.size()), descs[i]));
    }
    return out;
  }

  std::string default_instance(const ProblemKey& key, const Backend& backend) const override {
    GemmDims g = gemm_dims(key);
    const int sm = static_cast<const GpuBackend&>(backend).sm();
    int i = bs::default_instance(static_cast<int>(g.M), static_cast<int>(g.N), static_cast<int>(g.K),
                                 backend.device().cu_num, sm, scaling_for(kind_, key));
    return bs::instances(scaling_for(kind_, key))[static_cast<size_t>(i)].name;
  }
  std::string baseline_instance(const ProblemKey&, const Backend&) const override {
    return gpu::blaslt::available().ok ? blaslt_name(0) : std::string();
  }

  std::unique_ptr<Workload> prepare(const ProblemKey& key, const Protocol& protocol, std::uint64_t seed,
                                    Backend& backend_base, const Reference* reuse) const override {
    auto& backend = static_cast<GpuBackend&>(backend_base);
    GemmDims g = gemm_dims(key);
    if (kind_.block_scales() && g.K % 128 != 0) throw Error(fmt::format("K={} is not a multiple of 128", g.K));
    std::string why_dtype;
    const auto dtype = key_dtype(kind_, key, &why_dtype);
    if (!dtype) throw Error(why_dtype);
    const bs::Scaling scaling = scaling_for(kind_, key);
    if (kind_.preshuffled() && !can_preshuffle(g.N, g.K))
      throw Error(fmt::format("N={} K={}: the preshuffled weight layout needs N % 16 == 0 and K % 32 == 0", g.N, g.K));
    // Where prepare's time goes (debug log): the tuner's largest phase on the block-scale grid.
    using PrepClock = std::chrono::steady_clock;
    const auto t_start = PrepClock::now();
    auto ms_since = [](PrepClock::time_point t) {
      return std::chrono::duration<double, std::milli>(PrepClock::now() - t).count();
    };
    auto wl = std::make_unique<GpuGemmWorkload>();
    wl->backend = &backend;
    wl->M = static_cast<int>(g.M);
    wl->N = static_cast<int>(g.N);
    wl->K = static_cast<int>(g.K);
    gpu::GpuStream& stream = backend.stream();
    if (gpu::blaslt::available().ok && *dtype != QDtype::Int8)
      wl->plan = gpu::blaslt::Plan::create(wl->M, wl->N, wl->K, kBlasltSlots, kind_.vendor_scaling);
    const double plan_ms = ms_since(t_start);
    wl->m_alloc = wl->plan ? std::max(wl->M, wl->plan->padded_m()) : wl->M;

    // Fresh random inputs (signed values, never zeros) for set 0, as the family's host layout: X [M,K]
    // with its scales padded to m_alloc rows (padding rows: zeros, scale 1), W [N,K] (preshuffled for the
    // kernels of a8w8_bpreshuffle) and its scales. X and W are uploaded from the generated vectors
    // themselves (the padding rows of X are zeroed on the device): copying them on the host cost as much
    // as drawing them (~0.2 s for the largest grid shape).
    const size_t x_bytes = static_cast<size_t>(wl->m_alloc) * g.K, w_bytes = static_cast<size_t>(g.N) * g.K;
    const std::vector<uint8_t>* xq_src = nullptr;
    const std::vector<uint8_t>* wq_src = nullptr;
    std::vector<uint8_t> wq_shuffled;
    const std::vector<uint8_t>* wq_plain_src = nullptr;
    std::vector<float> xs_host, ws_host;
    std::optional<BlockscaleGemmInputs> bin;
    std::optional<PtpcGemmInputs> pin;
    if (kind_.block_scales()) {
      bin = make_blockscale_inputs(wl->M, wl->N, wl->K, Fp8Format::E4M3FN, seed);
      const size_t kb = static_cast<size_t>(g.K / 128);
      xq_src = &bin->xq;
      xs_host.assign(static_cast<size_t>(wl->m_alloc) * kb, 1.0f);
      std::memcpy(xs_host.data(), bin->x_scale.data(), bin->x_scale.size() * 4);
      wq_src = &bin->wq;
      ws_host = bin->w_scale;
    } else {
      pin = make_ptpc_inputs(wl->M, wl->N, wl->K, *dtype, seed * 1000003ull);
      xq_src = &pin->xq;
      xs_host.assign(static_cast<size_t>(wl->m_alloc), 1.0f);
      std::memcpy(xs_host.data(), pin->x_scale.data(), pin->x_scale.size() * 4);
      ws_host = pin->w_scale;
      if (kind_.preshuffled()) {
        wq_shuffled = preshuffle_weight(pin->wq.data(), g.N, g.K);
        wq_src = &wq_shuffled;
        if (wl->plan && !wl->plan->algos().empty()) wq_plain_src = &pin->wq;
      } else {
        wq_src = &pin->wq;
      }
    }
    const double inputs_ms = ms_since(t_start) - plan_ms;
    const auto t_device = PrepClock::now();
    const size_t xs_bytes = xs_host.size() * 4, ws_bytes = ws_host.size() * 4;
    const int sets = rotation_sets(protocol, backend.device(), backend.policy(),
                                   static_cast<double>(x_bytes + w_bytes + xs_bytes + ws_bytes));

    // The other sets hold copies at other addresses: rotation is about where the data lives, not what it is.
    // `bytes` is the buffer's size; the host data fills its first `host_bytes`, the rest is zeroed.
    auto upload = [&](std::vector<gpu::DeviceBuffer>& bufs, const void* host, size_t host_bytes, size_t bytes) {
      bufs.emplace_back(bytes);
      if (bufs.size() == 1) {
        if (host_bytes < bytes) bufs.back().memset_async(0, stream);
        bufs.back().copy_from_host(host, host_bytes, stream);
      } else {
        bufs.back().copy_from_device_async(bufs[0], stream);  // a big shape's inputs cross PCIe once
      }
    };
    for (int s = 0; s < sets; ++s) {
      upload(wl->xq, xq_src->data(), xq_src->size(), x_bytes);
      upload(wl->xs, xs_host.data(), xs_bytes, xs_bytes);
      upload(wl->wq, wq_src->data(), w_bytes, w_bytes);
      upload(wl->ws, ws_host.data(), ws_bytes, ws_bytes);
      if (wq_plain_src != nullptr) upload(wl->wq_plain, wq_plain_src->data(), w_bytes, w_bytes);
    }
    wl->y.emplace(backend, static_cast<size_t>(wl->M) * g.N, static_cast<size_t>(wl->m_alloc) * g.N);
    size_t scratch = 0;
    for (const auto& p : bs::instances(scaling))
      if (!bs::why_not(p, wl->M, wl->N, wl->K, backend.sm()))
        scratch = std::max(scratch, bs::workspace_bytes(p, wl->M, wl->N, wl->K));
    wl->scratch = gpu::DeviceBuffer(std::max<size_t>(scratch, 256));
    CKTUNE_GPU_CHECK(bs::prepare_workspace(wl->scratch.data(), wl->scratch.size(), wl->stream()));
    if (wl->plan && !wl->plan->algos().empty()) {
      wl->blaslt_workspace = gpu::DeviceBuffer(std::max<size_t>(wl->plan->max_workspace_bytes(), 256));
      for (int s = 0; s < sets; ++s) {
        wl->blaslt_scales.emplace_back(std::max<size_t>(wl->plan->scale_bytes(), 256));
        const float *xs_t = nullptr, *ws_out = nullptr;
        CKTUNE_GPU_CHECK(wl->plan->convert_scales(wl->xs[s].as<float>(), wl->ws[s].as<float>(),
                                                  wl->blaslt_scales.back().data(), wl->stream(), &xs_t, &ws_out));
        wl->blaslt_xs.push_back(xs_t);
        wl->blaslt_ws.push_back(ws_out);
      }
    }

    const double device_ms = ms_since(t_device);
    const auto t_ref = PrepClock::now();
    // Reference on the CPU: every row when affordable, else rows sampled over M (first and last included).
    if (bin) {
      make_reference(wl->reference, reuse, g.M, g.N, static_cast<double>(g.N) * g.K, backend.policy(), seed,
                     [&](float* out) { ref_a8w8_blockscale(*bin, out); },
                     [&](const std::vector<std::int64_t>& rows, float* out) { ref_a8w8_blockscale_rows(*bin, rows, out); });
    } else {
      const PtpcGemmView v = view_of(*pin);
      make_reference(wl->reference, reuse, g.M, g.N, static_cast<double>(g.N) * g.K, backend.policy(), seed,
                     [&](float* out) { ref_a8w8_ptpc(v, out); },
                     [&](const std::vector<std::int64_t>& rows, float* out) { ref_a8w8_ptpc_rows(v, rows, out); });
    }
    const double ref_ms = ms_since(t_ref);
    const auto t_wait = PrepClock::now();
    stream.synchronize();
    log().debug("prepare {}x{}x{}: blaslt plan {:.1f} ms, inputs {:.1f} ms, device buffers ({} sets) {:.1f} ms, "
                "reference {:.1f} ms, copies still running {:.1f} ms",
                wl->M, wl->N, wl->K, plan_ms, inputs_ms, sets, device_ms, ref_ms, ms_since(t_wait));
    return wl;
  }

  std::vector<std::string> tuned_row(const ProblemKey& key, const DeviceInfo& device, const CandidateResult& winner,
                                     const InstanceDesc&) const override {
    return gemm_tuned_row(key, device, winner);
  }

 private:
  GpuGemmKind kind_;
};

}  // namespace

std::unique_ptr<FamilyUnit> make_gpu_gemm_unit(Family family) { return std::make_unique<GpuGemmUnit>(kind_of(family)); }

}  // namespace cktune
