// The a8w8_blockscale instance table, and for all three scalings: the can-run rules, launch, and the
// untuned default heuristic. Kernel bodies live in mma_splitk.cuh and wgmma.cuh; the per-token tables
// in a8w8_pertoken.cu (a separate translation unit, so the two compile in parallel).
#include "a8w8_blockscale.hpp"

#include <cstdio>

#include "launch.cuh"

namespace cktune::kernels::a8w8_blockscale {
namespace table {
namespace {

// The macros of launch.cuh build entries of this scaling.
constexpr Scaling SC = Scaling::Block128;

// Order is the id: append only once tuned tables exist (ids and names are stored in them). The rows are
// the lists of launch.cuh, in the order the table had when its ids were first written.
const std::array kTable = {CKTUNE_MMA_ROWS,     CKTUNE_WGMMA_ROWS,      CKTUNE_WGMMA_DB_ROWS,
                           CKTUNE_WGMMA_P_ROWS, CKTUNE_WGMMA_P_DB_ROWS, CKTUNE_WGMMA_K_ROWS,
                           CKTUNE_WGMMA_SWAP_ROWS, CKTUNE_MMA_DIRECT_ROWS, CKTUNE_WGMMA_P_DB_DEEP_ROWS,
                           CKTUNE_WGMMA_P_DB_MC_ROWS, CKTUNE_WGMMA_P_DB_T_ROWS, CKTUNE_GEMV_ROWS,
                           CKTUNE_WGMMA_2CTA_ROWS};
#undef CKTUNE_MMA
#undef CKTUNE_WGMMA
#undef CKTUNE_WGMMA_P
#undef CKTUNE_WGMMA_P_DB
#undef CKTUNE_WGMMA_P_DB_MC
#undef CKTUNE_WGMMA_P_DB_T
#undef CKTUNE_WGMMA_DB
#undef CKTUNE_WGMMA_K
#undef CKTUNE_WGMMA_SWAP
#undef CKTUNE_MMA_DIRECT
#undef CKTUNE_GEMV

const Table<kTable.size()>& block_table() {
  static const Table<kTable.size()> t(kTable);
  return t;
}

}  // namespace
}  // namespace table

#if defined(CKTUNE_CUDA)
namespace {
// What the persistent kernel's split tail (wgmmap2t) splits for (M, N, K) on the current device: its launch takes
// min(tiles, SMs) CTAs.
detail::TailPlan split_tail(const InstanceParams& p, int M, int N, int K) {
  const int tiles = ((M + p.tile_m - 1) / p.tile_m) * ((N + p.tile_n - 1) / p.tile_n);
  const int sms = detail::device_sm_count();
  return detail::tail_plan(tiles, tiles < sms ? tiles : sms, K / 128);
}
}  // namespace
#endif

std::string_view to_string(Variant v) {
  return enum_text(kVariantNames, v, "?");
}

std::string instance_name(const InstanceParams& p) {
  const char* prefix = "";
  switch (p.scaling) {
    case Scaling::Block128: break;
    case Scaling::PerToken: prefix = "pt_"; break;
    case Scaling::PerTokenPreshuffledW: prefix = "ptps_"; break;
    case Scaling::PerTokenI8: prefix = "pti8_"; break;
    case Scaling::PerTokenI8PreshuffledW: prefix = "pti8ps_"; break;
  }
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s%s_m%d_n%d_k%d_st%d_w%d_sk%d", prefix, std::string(to_string(p.variant)).c_str(),
                p.tile_m, p.tile_n, p.tile_k, p.stages, p.warps, p.split_k);
  return buf;
}

std::span<const InstanceParams> instances(Scaling s) {
  if (s == Scaling::Block128) return table::block_table().params;
  return table::pertoken_instances(s);
}

const char* why_not(const InstanceParams& p, int M, int N, int K, int sm) {
  if (M <= 0 || N <= 0 || K <= 0) return "M, N and K must be positive";
#if defined(CKTUNE_HIP)
  (void)p;
  (void)sm;
  if (K % 128 != 0) return "K is not a multiple of 128: a8w8_blockscale needs whole 128-wide K scale blocks";
  return "no AMD implementation of this instance yet (its inner loops are NVIDIA-only)";
#endif
  if (K % 128 != 0)
    return p.scaling == Scaling::Block128
               ? "K is not a multiple of 128: a8w8_blockscale needs whole 128-wide K scale blocks"
               : "K is not a multiple of 128: these kernels load K in 128-byte stages";
  if (is_preshuffled(p.scaling) && N % 16 != 0)
    return "the preshuffled weight layout needs N to be a multiple of 16";
  if (sm < p.min_sm) return "the device is too old for this instance's code path";
  if (p.split_k > K / 128) return "split_k exceeds the number of 128-wide K blocks";
  const bool persistent = p.variant == Variant::WgmmaPersistent || p.variant == Variant::WgmmaPersistentDb ||
                          p.variant == Variant::WgmmaPersistentFast || p.variant == Variant::WgmmaPersistentDbMcW ||
                          p.variant == Variant::WgmmaPersistentDbMcX || p.variant == Variant::WgmmaPersistentDbTail;
  const bool hopper_path = p.variant == Variant::Wgmma || p.variant == Variant::WgmmaDb ||
                           p.variant == Variant::WgmmaK || p.variant == Variant::WgmmaSwap ||
                           p.variant == Variant::WgmmaFast || persistent;
  const bool fast = p.variant == Variant::WgmmaFast || p.variant == Variant::WgmmaPersistentFast;
  if (fast && p.scaling == Scaling::Block128)
    return "fast accumulation has no per-block partial to scale: per-token tables only";
  if (hopper_path && sm != 90) return "wgmma/TMA path is built for sm_90a only";
  const bool grid_wgmma =
      p.variant == Variant::Wgmma || p.variant == Variant::WgmmaDb || p.variant == Variant::WgmmaK ||
      p.variant == Variant::WgmmaFast;
  if (grid_wgmma && p.split_k > 1 && p.tile_m % (16 * p.split_k) != 0)
    return "the wgmma split-K gives each CTA of its cluster whole 16-row warp blocks of the tile: tile_m must be a "
           "multiple of 16 x split_k";
  if (p.variant == Variant::WgmmaSwap) {
    // Any token tile that holds M: a row tuned at M = 16 also serves M = 2 through the padded-M lookup.
    if (M > p.tile_m) return "the swapped-operand decode kernel's token tile is smaller than M (it takes M <= 32)";
  }
  if (p.variant == Variant::DirectMma) {
    if (M > p.tile_m) return "the register-fed decode kernel's token tile is smaller than M (it takes M <= 16)";
    if (detail::direct_smem_bytes(p.warps, p.tile_m, M, K) > 227 * 1024)
      return "the register-fed decode kernel keeps the token rows in shared memory: M x K is too large for it";
  }
  if (p.variant == Variant::Gemv || p.variant == Variant::GemvHalf) {
    if (M > p.tile_m) return "the CUDA-core decode kernel's token tile is smaller than M (it takes M <= 8)";
  }
  if (persistent && N % 8 != 0) return "the TMA-store epilogue needs N to be a multiple of 8 (16-byte output rows)";
  return nullptr;
}

const char* redundant_with(const InstanceParams& p, int M, int N, int K) {
  (void)K;
  // Forms that would run as plain wgmmap2 does for this shape: equal twins, kept out of the tune (they still run).
  const int tiles_m = (M + p.tile_m - 1) / p.tile_m, tiles_n = (N + p.tile_n - 1) / p.tile_n;
  if (p.variant == Variant::WgmmaPersistentDbMcW && tiles_m < 2)
    return "a cluster pair along M needs two M tiles (with one, each pair's second CTA only reads zeros)";
  if (p.variant == Variant::WgmmaPersistentDbMcX && tiles_n < 2)
    return "a cluster pair along N needs two N tiles (with one, each pair's second CTA only reads zeros)";
#if defined(CKTUNE_CUDA)
  if (p.variant == Variant::WgmmaPersistentDbTail && split_tail(p, M, N, K).tail == 0)
    return "nothing to split: the tiles fill whole waves on this device, or the last wave leaves fewer than two "
           "pieces a tile (wgmmap2 runs the same)";
#endif
  return nullptr;
}

size_t workspace_bytes(const InstanceParams& p, int M, int N, int K) {
  (void)K;
#if defined(CKTUNE_CUDA)
  // Split-K reduces inside a thread-block cluster on NVIDIA (splitk.cuh): no scratch. The persistent kernel's split
  // tail parks fp32 partials (one 64 x tile_n plane a warpgroup and piece) after the shape's counter region.
  if (p.variant == Variant::WgmmaPersistentDbTail) {
    const detail::TailPlan tp = split_tail(p, M, N, K);
    if (tp.tail == 0) return 0;
    return detail::counter_region_bytes(M, N) +
           table::align_up(static_cast<size_t>(tp.tail) * tp.split * p.tile_m * p.tile_n * sizeof(float));
  }
  (void)p, (void)M, (void)N;
  return 0;
#else
  // The portable split-K epilogue keeps fp32 partials and tile counters in the workspace.
  if (p.split_k <= 1) return 0;
  return detail::counter_region_bytes(M, N) + table::align_up(static_cast<size_t>(p.split_k) * M * N * sizeof(float));
#endif
}

gpu::ErrorCode prepare_workspace(void* workspace, size_t bytes, gpu::Stream stream) {
  if (workspace == nullptr || bytes == 0) return gpu::kSuccess;
  return gpu::rt::memset_async(workspace, 0, bytes, stream);
}

gpu::ErrorCode launch(const InstanceParams& p, const Args& a, gpu::Stream stream) {
  const size_t count = instances(p.scaling).size();
  if (p.id < 0 || static_cast<size_t>(p.id) >= count) return gpu::kErrorInvalidValue;
  if (why_not(p, a.M, a.N, a.K) != nullptr) return gpu::kErrorInvalidValue;
  if (a.workspace_bytes < workspace_bytes(p, a.M, a.N, a.K)) return gpu::kErrorInvalidValue;
  // A failed runtime call elsewhere leaves a sticky "last error" that our post-launch check would
  // report as ours; start clean.
  (void)gpu::get_last_error();
  const table::LaunchFn fn = p.scaling == Scaling::Block128 ? table::block_table().launch[static_cast<size_t>(p.id)]
                                                             : table::pertoken_launch(p.scaling, p.id);
  return fn(p, a, stream);
}

int default_instance(int M, int N, int K, int sm_count, int sm, Scaling s) {
  // Untuned rule of thumb, written before any measurement was tuned into it: pick a tile family
  // by M (warp MMA for decode, wgmma from M > 16 on sm_90), then the smallest split count of that
  // family that gives every SM at least one CTA. Tuning replaces this per shape. The int8 tables take
  // the rule's pre-Hopper branch. Two branches were added from
  // measurement since: the CUDA-core decode kernel at M = 1, the register-fed one at M <= 8,
  // K >= 2048, N >= 16 x SMs.
  const auto all = instances(s);
  if (is_int8(s)) sm = 89;
  Variant v = Variant::SplitKMma;
  int tm = 8, tn = 64, st = 4;
  if (sm == 90 && M > 512 && N % 8 == 0) {
    for (const auto& p : all)
      if (p.variant == Variant::WgmmaPersistent && p.tile_m == 128 && p.tile_n == 128 && p.stages == 4) return p.id;
  }
  // One token with K >= 1536 and 16 rows for every SM, block or plain per-token scales: the CUDA-core kernel, 32 rows
  // a CTA, 16 warps, f16 sums (added 2026-11-29 from measurement, docs/perf.md: faster than the register-fed row below
  // on the block grid's five such (N, K), 1.11-1.31x, and on the per-token study's twelve, 1.04-1.23x).
  if ((s == Scaling::Block128 || s == Scaling::PerToken) && M == 1 && K >= 1536 && (N + 15) / 16 >= sm_count) {
    for (const auto& p : all)
      if (p.variant == Variant::GemvHalf && p.tile_n == 32 && p.warps == 16 && why_not(p, M, N, K, sm) == nullptr)
        return p.id;
  }
  // Decode with a long K and a row group of 16 for every SM: the register-fed kernel, 4 warps with 4 k-blocks
  // each in flight (added 2026-11-25 from measurement, docs/perf.md: faster than the split warp-MMA row this rule
  // picked on 38 of the per-token study's 40 such shapes at M <= 8 and on four of the block grid's six (N, K) at
  // M = 1; slower at K = 512 and where N / 16 leaves SMs without a CTA). Block scales and plain per-token only: the
  // preshuffled and int8 tables were not timed with it.
  if ((s == Scaling::Block128 || s == Scaling::PerToken) && M <= 8 && K >= 2048 && (N + 15) / 16 >= sm_count) {
    for (const auto& p : all)
      if (p.variant == Variant::DirectMma && p.tile_m == 8 && p.warps == 4 && p.stages == 4 &&
          why_not(p, M, N, K, sm) == nullptr)
        return p.id;
  }
  if (M > 8) tm = 16;
  if (M > 16) {
    if (sm == 90) {
      v = Variant::Wgmma;
      tm = M <= 64 ? 64 : 128;
      tn = 128;
      st = M <= 64 ? 6 : 4;
    } else {
      tm = M <= 32 ? 32 : M <= 64 ? 64 : 128;
      tn = M <= 32 ? 64 : 128;
      st = tm == 128 ? 3 : 4;
    }
  }
  const long tiles = static_cast<long>((N + tn - 1) / tn) * ((M + tm - 1) / tm);
  int best = -1;
  for (const auto& p : all) {
    if (p.variant != v || p.tile_m != tm || p.tile_n != tn || p.tile_k != 128 || p.stages != st) continue;
    if (why_not(p, M, N, K, sm) != nullptr) continue;
    if (best < 0 || (tiles * all[best].split_k < sm_count && p.split_k > all[best].split_k)) best = p.id;
  }
  return best < 0 ? 0 : best;
}

}  // namespace cktune::kernels::a8w8_blockscale
