// The one-launch decode instances of fused MoE: plain data, the can-run rules, launch.
// Kernel body: fused.cuh.
#include <array>
#include <atomic>
#include <string>

#include "../common/instance_table.hpp"
#include "fused.cuh"
#include "moe_2stages.hpp"

#if defined(CKTUNE_CUDA)
#include "../common/tma_map.hpp"
#endif

namespace cktune::kernels::moe_2stages {

namespace {

constexpr int kMaxSharedBytes = 227 * 1024;

using FusedLaunchFn = gpu::ErrorCode (*)(const FusedParams&, const Args&, gpu::Stream);

#if defined(CKTUNE_CUDA)
template <int C, int NS, int KB2>
gpu::ErrorCode launch_kb2(const FusedParams&, const Args& a, gpu::Stream stream) {
  auto kernel = detail::fused_kernel<C, NS, KB2>;
  static std::atomic<int> smem_set{0};
  const detail::FusedGeom g = detail::fused_geom(C, a.model_dim, a.inter_dim);
  const detail::FusedLayout l = detail::fused_layout(NS, a.model_dim, a.inter_dim, detail::fused_x_rows(a.tokens));
  if (auto e = gpu::allow_dynamic_shared_memory(kernel, l.total, smem_set); e != gpu::kSuccess) return e;
  CUtensorMap m1, m2;
  if (!gpu::tma::make_kblock_map(&m1, a.w1q, static_cast<long long>(a.experts) * 2 * a.inter_dim, a.model_dim, g.rg,
                                 g.nk1) ||
      !gpu::tma::make_kblock_map(&m2, a.w2q, static_cast<long long>(a.experts) * a.model_dim, a.inter_dim, 64, 2))
    return gpu::kErrorInvalidValue;
  const dim3 grid(C, static_cast<unsigned>(a.tokens * a.topk));
  return gpu::launch(kernel, grid, dim3(detail::kFusedThreads), static_cast<size_t>(l.total), stream,
                     gpu::LaunchOpts{dim3(1, 1, 1), overlap_launches(a.tokens, a.topk)}, m1, m2, a);
}

template <int C, int NS>
gpu::ErrorCode launch_fused_cfg(const FusedParams& p, const Args& a, gpu::Stream stream) {
  switch (a.inter_dim / 128) {
    case 2: return launch_kb2<C, NS, 2>(p, a, stream);
    case 3: return launch_kb2<C, NS, 3>(p, a, stream);
    case 4: return launch_kb2<C, NS, 4>(p, a, stream);
    default: return gpu::kErrorNotSupported;
  }
}
#else
template <int C, int NS>
gpu::ErrorCode launch_fused_cfg(const FusedParams&, const Args&, gpu::Stream) {
  return gpu::kErrorNotSupported;
}
#endif

using FusedEntry = TableEntry<FusedParams, FusedLaunchFn>;

#define CKTUNE_FUSED(C, NS) \
  FusedEntry { FusedParams{0, nullptr, C, NS}, &launch_fused_cfg<C, NS> }
// 16 CTAs an expert give one token's 8 experts 128 CTAs; 8 and 4 suit 2 and 4 tokens (DeepSeek-V3).
const std::array kFused = {CKTUNE_FUSED(16, 8), CKTUNE_FUSED(8, 8), CKTUNE_FUSED(4, 8), CKTUNE_FUSED(16, 6)};
#undef CKTUNE_FUSED

const InstanceTable<FusedParams, FusedLaunchFn, kFused.size()>& fused_table() {
  static const InstanceTable<FusedParams, FusedLaunchFn, kFused.size()> t(kFused, [](const FusedParams& p) {
    return "cktune_moe_1stage_c" + std::to_string(p.ctas) + "_st" + std::to_string(p.stages);
  });
  return t;
}

}  // namespace

std::span<const FusedParams> fused_instances() { return fused_table().rows(); }

const char* fused_why_not(const FusedParams& p, int tokens, int model_dim, int inter_dim, int experts, int topk,
                          int sm, int sms) {
#if !defined(CKTUNE_CUDA)
  (void)p, (void)tokens, (void)model_dim, (void)inter_dim, (void)experts, (void)topk, (void)sm, (void)sms;
  return "the one-launch MoE kernel has no AMD implementation";
#else
  if (tokens < 1 || experts < 1 || topk < 1 || topk > experts) return "bad routing sizes";
  if (tokens > kFusedMaxTokens) return "one launch takes at most 8 tokens (an expert's rows are one 8-wide MMA tile)";
  if (tokens * topk > detail::kFusedMaxPairs) return "more routed pairs than the kernel's routing table holds (512)";
  if (experts > detail::kFusedMaxExperts) return "more experts than the kernel's routing bitmap holds (4096)";
  if (sm != 90) return "needs Hopper's TMA (sm_90)";
  // The CTAs of an expert wait for each other between the stages: the whole grid must be resident at once,
  // which one CTA an SM guarantees (a GPU shared with other work could still delay some; tune's watchdog
  // ends a launch that never finishes).
  if (static_cast<long long>(tokens) * topk * p.ctas > sms) return "more CTAs than multiprocessors (tokens * topk * ctas)";
  if (model_dim % 128 != 0 || inter_dim % 128 != 0) return "model_dim and inter_dim must be multiples of 128";
  if (inter_dim / 128 < 2 || inter_dim / 128 > 4) return "stage 2 keeps K = inter_dim in registers: 256..512 only";
  if (const char* why = detail::fused_geom_why_not(p.ctas, p.stages, tokens, model_dim, inter_dim, kMaxSharedBytes))
    return why;
  if (static_cast<long long>(experts) * 2 * inter_dim >= (1ll << 31) || static_cast<long long>(experts) * model_dim >= (1ll << 31))
    return "expert weight rows exceed the tensor map's 32-bit coordinates";
  if (static_cast<long long>(tokens) * topk > 65535) return "more routed pairs than grid rows";
  return nullptr;
#endif
}

gpu::ErrorCode launch_fused(const FusedParams& p, const Args& a, gpu::Stream stream) {
  return fused_table().launch[static_cast<size_t>(p.id)](p, a, stream);
}

size_t fused_count_ints(int tokens, int topk) {
  // per (token, CTA rank): slots summed; per unit: CTAs arrived, CTAs done reading
  return static_cast<size_t>(tokens) * kFusedMaxCtas + 2 * static_cast<size_t>(tokens) * topk;
}

}  // namespace cktune::kernels::moe_2stages
