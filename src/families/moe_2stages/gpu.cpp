// Fused MoE (moe_2stages, FP8 per_1x128, g1u1, SiLU) on the GPU. A candidate is a whole pipeline for
// one block_m: moe_sorting, a stage-1 instance and a stage-2 instance of that block_m
// (kernels/moe_2stages). It runs and is timed whole (sorting included) and is checked stage by stage
// against the CPU reference (verify/moe_stages.hpp: stage 1's output, then the output against the
// reference's stage 2 fed this stage 1), which gives the tuned row's err1 and err2; its parts
// (sorting, stage 1, stage 2, the sum over the slots) are then timed alone for us1/us2 (engine:
// Instance::parts).
#include <algorithm>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "backends/gpu_backend.hpp"
#include "cktune/core/error.hpp"
#include "cktune/engine/family_unit.hpp"
#include "cktune/engine/policy.hpp"
#include "cktune/engine/tuned_row.hpp"
#include "cktune/gpu/runtime.hpp"
#include "cktune/numerics/random.hpp"
#include "cktune/ref/moe.hpp"
#include "cktune/verify/moe_stages.hpp"
#include "kernels/common/compat.hpp"
#include "kernels/moe_2stages/moe_2stages.hpp"
#include "kernels/moe_2stages/sorting.hpp"

namespace cktune {

namespace moe = kernels::moe_2stages;

namespace {

constexpr int kBlockMs[] = {16, 32, 64, 128};
constexpr int kPipelineIdStride = 1000;  // kernelId = stage-1 id * stride + stage-2 id
constexpr int kFusedIdBase = 900000;     // kernelId of a one-launch instance: base + its id

struct Shape {
  int T = 0, D = 0, I = 0, E = 0, topk = 0;
};

Shape shape_of(const ProblemKey& key) {
  Shape s;
  s.T = static_cast<int>(key.get_int("token"));
  s.D = static_cast<int>(key.get_int("model_dim"));
  s.I = static_cast<int>(key.get_int("inter_dim"));
  s.E = static_cast<int>(key.get_int("expert"));
  s.topk = static_cast<int>(key.get_int("topk"));
  return s;
}

// The sorted routing of one block_m.
struct Sorted {
  int block_m = 0, max_blocks = 0;
  gpu::DeviceBuffer ids, weights, expert_ids, num_valid, workspace;
};

struct MoeGpuWorkload;

// The output, and with it the pipeline's intermediate buffers: poisoning the output also poisons the
// stage-1 output (the poison pattern, counted as unwritten) and its re-quantised copy and the per-slot
// rows (NaN), and clears every sorted routing's row count, so a candidate that skips a part cannot pass
// on what an earlier candidate left behind. The check is stage by stage (check_moe_stages).
class MoeOutput final : public OutputBuffer {
 public:
  MoeOutput(GpuBackend& backend, size_t cells, MoeGpuWorkload& w) : y_(backend, cells, cells), backend_(backend), w_(w) {}
  void poison() override;
  void read(std::vector<std::uint16_t>& host) override { y_.read(host); }
  void corrupt(FaultKind kind) override { y_.corrupt(kind); }
  CheckResult check(const Reference& ref, const Tolerance& tol) override;
  std::uint16_t* data() { return y_.data(); }

 private:
  DeviceOutput y_;
  GpuBackend& backend_;
  MoeGpuWorkload& w_;
  std::vector<std::uint16_t> out_rows_, a_rows_;  // reused between checks
  MoeStage2Memo memo_;                            // stage 2's expected rows by stage-1 output, for this reference
};

struct MoeGpuWorkload final : Workload {
  Shape s;
  bool doweight_stage1 = false;
  // per set: inputs (copies of one set at other addresses)
  std::vector<gpu::DeviceBuffer> xq, xs, w1q, w1s, w2q, w2s;
  gpu::DeviceBuffer topk_ids, topk_weights;
  std::vector<Sorted> sorted;  // one per block_m in kBlockMs
  std::optional<DeviceOutput> a;              // stage-1 output, bf16 [tokens*topk, inter]
  gpu::DeviceBuffer aq, a_scale, y_slots;     // its re-quantised copy, stage-2 per-slot rows
  gpu::DeviceBuffer fused_counts;             // the one-launch kernel's per-token counts (kept zeroed)
  gpu::DeviceBuffer tile_counter;             // a `_dyn` stage 2's tile claims (kept zeroed)
  std::optional<MoeOutput> y;
  MoeInputs host_in;                          // the inputs (one set), for the stage-2 reference of a check
  MoeParams mp;
  GpuBackend* backend = nullptr;
  double bytes = 0;                           // the least a launch moves: the experts this routing reaches
  int sets() const override { return static_cast<int>(xq.size()); }
  OutputBuffer& output() override { return *y; }
  double min_bytes() const override { return bytes; }
  gpu::Stream stream() const { return gpu::as_stream(backend->stream().native()); }
  Sorted& sorted_for(int block_m) {
    for (auto& x : sorted)
      if (x.block_m == block_m) return x;
    throw Error(fmt::format("moe: no sorted routing prepared for block_m {}", block_m));
  }
};

void MoeOutput::poison() {
  y_.poison();
  w_.a->poison();
  w_.aq.memset_async(0xff, backend_.stream());  // fp8 e4m3fn 0xff is a NaN
  w_.y_slots.memset_async(0xff, backend_.stream());
  for (auto& so : w_.sorted) so.num_valid.memset_async(0, backend_.stream());
  // Zero, as the kernel leaves them: a launch cut short must not carry counts into the next candidate.
  w_.fused_counts.memset_async(0, backend_.stream());
  w_.tile_counter.memset_async(0, backend_.stream());
}

CheckResult MoeOutput::check(const Reference& ref, const Tolerance& tol) {
  const Shape& s = w_.s;
  std::vector<std::int64_t> all;
  if (ref.sampled_rows.empty()) {
    all.resize(static_cast<size_t>(s.T));
    for (int t = 0; t < s.T; ++t) all[static_cast<size_t>(t)] = t;
  }
  const std::span<const std::int64_t> tokens = ref.sampled_rows.empty() ? std::span<const std::int64_t>(all)
                                                                          : std::span<const std::int64_t>(ref.sampled_rows);
  std::vector<std::int64_t> pair_rows;  // the (token, slot) rows of the stage-1 output; none = all of it
  if (!ref.sampled_rows.empty())
    for (std::int64_t t : tokens)
      for (int j = 0; j < s.topk; ++j) pair_rows.push_back(t * s.topk + j);
  MoeStageOutputs o;
  o.tokens = tokens;
  o.unwritten_out = y_.gather(ref.sampled_rows, ref.cols, out_rows_);
  o.unwritten_a = w_.a->gather(pair_rows, s.I, a_rows_);
  o.ref_a = ref.intermediate.data();
  o.ref_out = ref.values.data();
  o.a = a_rows_.data();
  o.out = out_rows_.data();
  if (ref.intermediate.size() != tokens.size() * static_cast<size_t>(s.topk) * static_cast<size_t>(s.I))
    throw Error("moe_2stages: the reference holds no stage-1 output for its tokens");
  return check_moe_stages(w_.host_in, w_.mp, o, tol, 0, &memo_);
}

// The kernels' arguments for input set `set`, all but the sorted routing.
moe::Args stage_args(MoeGpuWorkload& w, int set) {
  const size_t i = static_cast<size_t>(set);
  moe::Args a{};
  a.tokens = w.s.T;
  a.topk = w.s.topk;
  a.model_dim = w.s.D;
  a.inter_dim = w.s.I;
  a.experts = w.s.E;
  a.doweight_stage1 = w.doweight_stage1;
  a.xq = w.xq[i].as<uint8_t>();
  a.x_scale = w.xs[i].as<float>();
  a.w1q = w.w1q[i].as<uint8_t>();
  a.w1_scale = w.w1s[i].as<float>();
  a.a = w.a->data();
  a.w2q = w.w2q[i].as<uint8_t>();
  a.w2_scale = w.w2s[i].as<float>();
  a.aq = w.aq.as<uint8_t>();
  a.a_scale = w.a_scale.as<float>();
  a.y_slots = w.y_slots.as<uint16_t>();
  a.out = w.y->data();
  a.topk_ids = w.topk_ids.as<int32_t>();
  a.topk_weights = w.topk_weights.as<float>();
  a.fused_counts = w.fused_counts.as<int>();
  a.tile_counter = w.tile_counter.as<int>();
  a.route_stage1 = true;  // the pipeline's sorting reads these topk_ids, without an expert mask
  return a;
}

// The key's limits that every GPU candidate shares; empty = none.
std::string gpu_key_why_not(const ProblemKey& key) {
  if (key.get("use_g1u1") != "1") return "only g1u1 (gate and up fused) is implemented";
  if (key.get("q_type") != "QuantType.per_1x128") return fmt::format("{} is not implemented on the GPU", key.get("q_type"));
  auto act = activation_from_string(key.get("act_type"));
  if (!act || *act != Activation::Silu) return fmt::format("{} is not implemented on the GPU", key.get("act_type"));
  if (key.get("q_dtype_w").find("fnuz") != std::string::npos) return "fp8 e4m3fnuz weights are AMD-only";
  return {};
}

std::string pipeline_name(const moe::StageParams& s1, const moe::StageParams& s2) {
  return fmt::format("{}+{}", s1.name, s2.name);
}

class PipelineInstance final : public Instance {
 public:
  PipelineInstance(const moe::StageParams& s1, const moe::StageParams& s2, InstanceDesc d, int sm)
      : Instance(std::move(d)), s1_(s1), s2_(s2), sm_(sm) {}

  std::string why_not(const ProblemKey& key) const override {
    if (auto why = gpu_key_why_not(key); !why.empty()) return why;
    const Shape s = shape_of(key);
    for (const auto* p : {&s1_, &s2_})
      if (const char* why = moe::why_not(*p, s.T, s.D, s.I, s.E, s.topk, sm_)) return why;
    if (const char* why = moe::sort_why_not(s.T, s.topk, s.E, s1_.block_m)) return why;
    return {};
  }
  void launch(Workload& w, int set) override {
    for (int p = 0; p < parts(); ++p) launch_part(w, set, p);
  }
  // Stage 2's kernel and the sum over the slots apart (the tuned row's us2 is both, as AITER's stage 2
  // includes its reduction). A stage 2 that adds into the output needs it zeroed: the sorting does it,
  // as AITER's moe_sorting zeroes its moe_buf.
  int parts() const override { return s2_.accumulate ? 3 : 4; }
  std::string part_name(int p) const override { return kPartNames[static_cast<int>(part_at(p))]; }
  void launch_part(Workload& base, int set, int part_index) override {
    auto& w = static_cast<MoeGpuWorkload&>(base);
    Sorted& so = w.sorted_for(s1_.block_m);
    const Part part = part_at(part_index);
    if (part == Part::Sort) {
      moe::SortArgs sa{};
      sa.topk_ids = w.topk_ids.as<int32_t>();
      sa.topk_weights = w.topk_weights.as<float>();
      sa.expert_mask = nullptr;
      sa.tokens = w.s.T;
      sa.topk = w.s.topk;
      sa.experts = w.s.E;
      sa.block_m = so.block_m;
      sa.sorted_ids = so.ids.as<int32_t>();
      sa.sorted_weights = so.weights.as<float>();
      sa.sorted_expert_ids = so.expert_ids.as<int32_t>();
      sa.num_valid_ids = so.num_valid.as<int32_t>();
      sa.fill_unused = false;  // the stages read only the used rows and blocks
      sa.overlap_previous = moe::overlap_launches(w.s.T, w.s.topk);
      sa.workspace = so.workspace.data();
      sa.workspace_bytes = so.workspace.size();
      if (s2_.accumulate) {
        sa.zero_out = w.y->data();
        sa.zero_bytes = static_cast<size_t>(w.s.T) * static_cast<size_t>(w.s.D) * 2;
      }
      CKTUNE_GPU_CHECK(moe::sort(sa, w.stream()));
      return;
    }
    moe::Args a = stage_args(w, set);
    a.sorted_ids = so.ids.as<int32_t>();
    a.sorted_weights = so.weights.as<float>();
    a.sorted_expert_ids = so.expert_ids.as<int32_t>();
    a.num_valid_ids = so.num_valid.as<int32_t>();
    a.max_blocks = so.max_blocks;
    if (part == Part::Stage1) {  // stage 1 and its re-quantisation for stage 2 (a `_q` stage 1 does both)
      CKTUNE_GPU_CHECK(moe::launch(s1_, a, w.stream()));
      if (!s1_.requantize) CKTUNE_GPU_CHECK(moe::quantize_stage1(a, w.stream()));
      return;
    }
    if (part == Part::Stage2) {
      CKTUNE_GPU_CHECK(moe::launch(s2_, a, w.stream()));
      return;
    }
    CKTUNE_GPU_CHECK(moe::reduce_slots(a.y_slots, w.y->data(), w.s.T, w.s.topk, w.s.D, w.stream()));
  }

 private:
  enum class Part { Sort, Stage1, Stage2, Reduce };
  static constexpr const char* kPartNames[] = {"sort", "stage1", "stage2", "reduce"};
  static Part part_at(int p) { return static_cast<Part>(p); }

  moe::StageParams s1_, s2_;
  int sm_;
};

// The one-launch decode kernel (moe::FusedParams): no sorting, both stages and the sum over the slots in
// one kernel, written as AITER writes a 1-stage row (run_1stage = 1, no kernelName2). It writes the
// stage-1 output too, so that it is checked stage by stage like a pipeline.
class FusedInstance final : public Instance {
 public:
  FusedInstance(const moe::FusedParams& p, InstanceDesc d, int sm, int sms)
      : Instance(std::move(d)), p_(p), sm_(sm), sms_(sms) {}
  std::string why_not(const ProblemKey& key) const override {
    if (auto why = gpu_key_why_not(key); !why.empty()) return why;
    const Shape s = shape_of(key);
    if (const char* why = moe::fused_why_not(p_, s.T, s.D, s.I, s.E, s.topk, sm_, sms_)) return why;
    return {};
  }
  void launch(Workload& base, int set) override {
    auto& w = static_cast<MoeGpuWorkload&>(base);
    CKTUNE_GPU_CHECK(moe::launch_fused(p_, stage_args(w, set), w.stream()));
  }

 private:
  moe::FusedParams p_;
  int sm_, sms_;
};

InstanceDesc fused_desc(const moe::FusedParams& p) {
  InstanceDesc d;
  d.id = kFusedIdBase + p.id;
  d.name = p.name;
  d.family = Family::Moe2Stages;
  d.provider = Provider::Cktune;
  d.backend = BackendKind::Gpu;
  d.split_k = 1;
  // block_m 0: no sorted blocks (AITER's 1-stage rows name the block size of their sorting).
  d.params = {{"block_m", "0"}, {"stage1", p.name}, {"ctas", std::to_string(p.ctas)},
              {"stages", std::to_string(p.stages)}};
  return d;
}

struct Pipeline {
  moe::StageParams s1, s2;
  InstanceDesc desc;
};

// Every (stage 1, stage 2) pair of the same block_m: the tuner times the pipelines whole, which
// contains AITER's choice (best stage 1 and best stage 2 per block_m) and also sees how the two
// stages and the sorting behave back to back.
std::vector<Pipeline> pipelines() {
  std::vector<Pipeline> out;
  for (const auto& s1 : moe::stage_instances(moe::Stage::One))
    for (const auto& s2 : moe::stage_instances(moe::Stage::Two)) {
      if (s1.block_m != s2.block_m) continue;
      InstanceDesc d;
      d.id = s1.id * kPipelineIdStride + s2.id;
      d.name = pipeline_name(s1, s2);
      d.family = Family::Moe2Stages;
      d.provider = Provider::Cktune;
      d.backend = BackendKind::Gpu;
      d.split_k = s1.split_k;
      d.params = {{"block_m", std::to_string(s1.block_m)}, {"stage1", s1.name},
                  {"stage2", s2.name},                     {"s1_tile_n", std::to_string(s1.tile_n)},
                  {"s1_warps", std::to_string(s1.warps)},  {"s1_split_k", std::to_string(s1.split_k)},
                  {"s2_tile_n", std::to_string(s2.tile_n)}, {"s2_warps", std::to_string(s2.warps)}};
      out.push_back({s1, s2, std::move(d)});
    }
  return out;
}

class MoeGpuUnit final : public FamilyUnit {
 public:
  std::vector<InstanceDesc> describe() const override {
    std::vector<InstanceDesc> out;
    for (auto& p : pipelines()) out.push_back(std::move(p.desc));
    for (const auto& f : moe::fused_instances()) out.push_back(fused_desc(f));
    return out;
  }
  std::vector<InstancePtr> instances(Backend& backend) const override {
    const int sm = static_cast<GpuBackend&>(backend).sm();
    std::vector<InstancePtr> out;
    for (auto& p : pipelines()) out.push_back(std::make_unique<PipelineInstance>(p.s1, p.s2, std::move(p.desc), sm));
    const int sms = backend.device().cu_num;
    for (const auto& f : moe::fused_instances()) out.push_back(std::make_unique<FusedInstance>(f, fused_desc(f), sm, sms));
    return out;
  }
  std::string default_instance(const ProblemKey& key, const Backend& backend) const override {
    const Shape s = shape_of(key);
    const auto d = moe::default_pick(s.T, s.D, s.I, s.E, s.topk, backend.device().cu_num,
                                     static_cast<const GpuBackend&>(backend).sm());
    if (d.stage1 < 0 || d.stage2 < 0) return {};
    return pipeline_name(moe::stage_instances(moe::Stage::One)[static_cast<size_t>(d.stage1)],
                         moe::stage_instances(moe::Stage::Two)[static_cast<size_t>(d.stage2)]);
  }

  std::unique_ptr<Workload> prepare(const ProblemKey& key, const Protocol& protocol, std::uint64_t seed,
                                    Backend& backend_base, const Reference* reuse) const override {
    auto& backend = static_cast<GpuBackend&>(backend_base);
    const Shape s = shape_of(key);
    if (key.get("q_type") != "QuantType.per_1x128")
      throw Error(fmt::format("moe_2stages on the GPU: {} is not implemented", key.get("q_type")),
                  "only QuantType.per_1x128 (fp8 block scales) has GPU kernels");
    if (s.D % 128 != 0 || s.I % 128 != 0)
      throw Error(fmt::format("moe_2stages on the GPU: model_dim {} and inter_dim {} must be multiples of 128", s.D, s.I));
    auto wl = std::make_unique<MoeGpuWorkload>();
    wl->backend = &backend;
    wl->s = s;
    wl->doweight_stage1 = key.get("doweight_stage1") == "1";
    gpu::GpuStream& stream = backend.stream();

    const Fp8Format fmt8 = key.get("q_dtype_w").find("fnuz") != std::string::npos ? Fp8Format::E4M3FNUZ : Fp8Format::E4M3FN;
    const auto routing = moe_routing_from_string(protocol.routing);
    if (!routing) throw Error(fmt::format("unknown MoE routing '{}'", protocol.routing), "use uniform or skewed");
    MoeInputs in = make_moe_inputs(s.T, s.D, s.I, s.E, s.topk, QuantType::Per1x128, fmt8, seed * 1000003ull,
                                   InputDistribution::Signed, 0, *routing);
    // Sized by what one launch reads (the routed experts' weights), so that at a few tokens the timed
    // launches find the weights in memory, not in the L2 the previous launch filled.
    const int sets = rotation_sets(protocol, backend.device(), backend.policy(), in.touched_bytes(), in.stored_bytes());
    auto upload = [&](std::vector<gpu::DeviceBuffer>& dst, const void* src, size_t bytes) {
      dst.emplace_back(std::max<size_t>(bytes, 256));
      dst.back().copy_from_host(src, bytes, stream);
    };
    for (int k = 0; k < sets; ++k) {
      upload(wl->xq, in.xq.data(), in.xq.size());
      upload(wl->xs, in.x_scale.data(), in.x_scale.size() * 4);
      upload(wl->w1q, in.w1q.data(), in.w1q.size());
      upload(wl->w1s, in.w1_scale.data(), in.w1_scale.size() * 4);
      upload(wl->w2q, in.w2q.data(), in.w2q.size());
      upload(wl->w2s, in.w2_scale.data(), in.w2_scale.size() * 4);
    }
    wl->topk_ids = gpu::DeviceBuffer(in.topk_ids.size() * 4);
    wl->topk_ids.copy_from_host(in.topk_ids.data(), in.topk_ids.size() * 4, stream);
    wl->topk_weights = gpu::DeviceBuffer(in.topk_weights.size() * 4);
    wl->topk_weights.copy_from_host(in.topk_weights.data(), in.topk_weights.size() * 4, stream);
    for (int bm : kBlockMs) {
      Sorted so;
      so.block_m = bm;
      const size_t cap = static_cast<size_t>(s.T) * s.topk + static_cast<size_t>(s.E) * bm - s.topk;
      so.max_blocks = static_cast<int>((cap + bm - 1) / bm);
      so.ids = gpu::DeviceBuffer(static_cast<size_t>(so.max_blocks) * bm * 4);
      so.weights = gpu::DeviceBuffer(static_cast<size_t>(so.max_blocks) * bm * 4);
      so.expert_ids = gpu::DeviceBuffer(static_cast<size_t>(so.max_blocks) * 4);
      so.num_valid = gpu::DeviceBuffer(256);
      const size_t ws = moe::sort_workspace_bytes(s.T, s.topk, s.E, bm);
      so.workspace = gpu::DeviceBuffer(std::max<size_t>(ws, 256));
      wl->sorted.push_back(std::move(so));
    }
    const size_t cells = static_cast<size_t>(s.T) * s.D;
    const size_t pair_cells = static_cast<size_t>(s.T) * s.topk * s.I;
    wl->a.emplace(backend, pair_cells, pair_cells);
    wl->aq = gpu::DeviceBuffer(static_cast<size_t>(s.T) * s.topk * s.I);
    wl->a_scale = gpu::DeviceBuffer(static_cast<size_t>(s.T) * s.topk * (s.I / 128) * 4);
    wl->y_slots = gpu::DeviceBuffer(static_cast<size_t>(s.T) * s.topk * s.D * 2);
    wl->fused_counts = gpu::DeviceBuffer(std::max<size_t>(moe::fused_count_ints(s.T, s.topk) * 4, 256));
    wl->fused_counts.memset_async(0, stream);
    wl->tile_counter = gpu::DeviceBuffer(256);
    wl->tile_counter.memset_async(0, stream);
    wl->y.emplace(backend, cells, *wl);

    // Reference on the CPU: every token when affordable, else tokens sampled (first and last included);
    // its stage-1 output is kept for the stage-by-stage check.
    MoeParams& mp = wl->mp;
    mp.act = Activation::Silu;
    mp.doweight_stage1 = wl->doweight_stage1;
    mp.quant = QuantType::Per1x128;
    Reference& ref = wl->reference;
    auto both_stages = [&](std::span<const std::int64_t> tokens, float* out) {
      const MoeStage1Out s1 = ref_moe_stage1_tokens(in, mp, tokens);
      ref_moe_stage2_tokens(in, mp, s1, tokens, out);
      ref.intermediate = s1.a;
    };
    make_reference(ref, reuse, s.T, s.D, 3.0 * s.topk * static_cast<double>(s.I) * s.D, backend.policy(), seed,
                   [&](float* out) {
                     std::vector<std::int64_t> all(static_cast<size_t>(s.T));
                     for (int t = 0; t < s.T; ++t) all[static_cast<size_t>(t)] = t;
                     both_stages(all, out);
                   },
                   [&](const std::vector<std::int64_t>& rows, float* out) { both_stages(rows, out); });
    stream.synchronize();
    wl->bytes = key.min_bytes(in.experts_reached());
    wl->host_in = std::move(in);
    return wl;
  }

  std::vector<std::string> tuned_row(const ProblemKey& key, const DeviceInfo& device, const CandidateResult& winner,
                                     const InstanceDesc& desc) const override {
    if (desc.param("stage2").empty()) return moe_single_unit_tuned_row(key, device, winner, desc);
    MoeRowParts parts;
    parts.block_m = std::stoi(desc.param("block_m"));
    parts.ksplit = winner.split_k > 1 ? winner.split_k : 0;
    parts.kernel1 = desc.param("stage1");
    parts.kernel2 = desc.param("stage2");
    // us1 / us2: the stages timed alone; without a breakdown, the whole pipeline goes to stage 1.
    const auto part = [&](const char* name) {
      for (size_t i = 0; i < winner.part_names.size(); ++i)
        if (winner.part_names[i] == name) return winner.part_us[i];
      return -1.0;
    };
    parts.us1 = part("stage1");
    parts.us2 = part("stage2");
    if (parts.us2 >= 0 && part("reduce") >= 0) parts.us2 += part("reduce");  // the sum over the slots
    if (parts.us1 < 0 || parts.us2 < 0) {
      parts.us1 = winner.time.median_us;
      parts.us2 = 0;
    }
    // Checked stage by stage (check_moe_stages): stage 1's errRatio, then the output's against the
    // reference's stage 2 fed this stage 1.
    const auto& st = winner.check.stage_err_ratios;
    parts.err1 = st.size() == 2 ? st[0] : winner.check.err_ratio;
    parts.err2 = st.size() == 2 ? st[1] : winner.check.err_ratio;
    parts.run_1stage = false;
    parts.min_bytes = winner.min_bytes;
    return moe_tuned_row(key, device, parts);
  }
};

}  // namespace

const FamilyUnit& moe_2stages_gpu() {
  static const MoeGpuUnit unit;
  return unit;
}

}  // namespace cktune
