// The a8w8_blockscale instance table: plain data, the can-run rules, launch, and the untuned
// default heuristic. Kernel bodies live in mma_splitk.cuh and wgmma.cuh.
#include "a8w8_blockscale.hpp"

#include <array>
#include <atomic>
#include <cstdio>

#include "mma_splitk.cuh"
#if defined(CKTUNE_CUDA)
#include "wgmma.cuh"
#endif

namespace cktune::kernels::a8w8_blockscale {
#if !defined(CKTUNE_CUDA)
// HIP build: the wgmma configurations exist only as names (see why_not()).
namespace detail {
template <int BM, int BN, int ST, bool DB = false>
struct WgCfg {
  static constexpr int kWarps = (BM / 64 + 1) * 4;
};
template <class C>
gpu::ErrorCode launch_wgmma(const InstanceParams&, const Args&, gpu::Stream) {
  return gpu::kErrorNotSupported;
}
template <class C>
gpu::ErrorCode launch_wgmma_persistent(const InstanceParams&, const Args&, gpu::Stream) {
  return gpu::kErrorNotSupported;
}
}  // namespace detail
#endif
namespace {

using detail::MmaArgs;
using detail::MmaCfg;

using LaunchFn = gpu::ErrorCode (*)(const InstanceParams&, const Args&, gpu::Stream);

constexpr size_t kAlign = 256;
constexpr size_t align_up(size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

#if defined(CKTUNE_CUDA)
// Opt in to more than 48 KB of dynamic shared memory once per kernel (host call, no sync).
template <class Kernel>
gpu::ErrorCode ensure_smem(Kernel k, int bytes, std::atomic<bool>& done) {
  if (bytes <= 48 * 1024 || done.load(std::memory_order_relaxed)) return gpu::kSuccess;
  const gpu::ErrorCode e = gpu::set_max_dynamic_shared_memory(k, bytes);
  if (e == gpu::kSuccess) done.store(true, std::memory_order_relaxed);
  return e;
}

template <class C>
gpu::ErrorCode launch_mma(const InstanceParams& p, const Args& a, gpu::Stream stream) {
  static std::atomic<bool> smem_set{false};
  auto kernel = detail::mma_splitk_kernel<C>;
  if (auto e = ensure_smem(kernel, C::kSmemBytes, smem_set); e != gpu::kSuccess) return e;
  MmaArgs m{};
  m.xq = a.xq;
  m.x_scale = a.x_scale;
  m.wq = a.wq;
  m.w_scale = a.w_scale;
  m.y = a.y;
  m.M = a.M;
  m.N = a.N;
  m.K = a.K;
  m.KB = a.K / 128;
  m.S = p.split_k;
  const dim3 grid((a.N + C::kBN - 1) / C::kBN, (a.M + C::kBM - 1) / C::kBM, p.split_k);
  if (p.split_k > 1) {
    // The S CTAs of a tile reduce through a thread-block cluster (1 x 1 x S); 16 is beyond the
    // portable cluster size and has to be allowed explicitly.
    static std::atomic<bool> big_cluster_set{false};
    if (p.split_k > 8 && !big_cluster_set.load(std::memory_order_relaxed)) {
      if (auto e = gpu::allow_non_portable_clusters(kernel); e != gpu::kSuccess)
        return e;
      big_cluster_set.store(true, std::memory_order_relaxed);
    }
    m.cluster = 1;
    return gpu::launch_clustered(kernel, grid, dim3(C::kThreads), C::kSmemBytes, stream,
                                 dim3(1, 1, static_cast<unsigned>(p.split_k)), m);
  }
  kernel<<<grid, C::kThreads, C::kSmemBytes, stream>>>(m);
  return gpu::get_last_error();
}
#else
// The AMD implementations of these code paths come with the MFMA inner loops (docs/arch/kernels.md);
// until then why_not() rejects every instance on a HIP build and launch() never gets here.
template <class C>
gpu::ErrorCode launch_mma(const InstanceParams&, const Args&, gpu::Stream) {
  return gpu::kErrorNotSupported;
}
#endif

struct Entry {
  InstanceParams params;
  LaunchFn launch;
};

// One row per kernel configuration and split count. KBS = 128-K blocks per pipeline stage.
#define CKTUNE_MMA(BM, BN, WN, WM, WK, ST, KBS, SK)                                                         \
  Entry{InstanceParams{0, nullptr, Variant::SplitKMma, BM, BN, 128 * (KBS), ST, (WN) * (WM) * (WK), SK, 89}, \
        &launch_mma<MmaCfg<BN, BM, WN, WM, WK, ST, KBS>>}
#define CKTUNE_WGMMA(BM, BN, ST, SK)                                                                        \
  Entry{InstanceParams{0, nullptr, Variant::Wgmma, BM, BN, 128, ST, detail::WgCfg<BM, BN, ST>::kWarps, SK, 90}, \
        &detail::launch_wgmma<detail::WgCfg<BM, BN, ST>>}
#define CKTUNE_WGMMA_DB(BM, BN, ST, SK)                                                                       \
  Entry{InstanceParams{0, nullptr, Variant::WgmmaDb, BM, BN, 128, ST, detail::WgCfg<BM, BN, ST, true>::kWarps, \
                       SK, 90},                                                                                \
        &detail::launch_wgmma<detail::WgCfg<BM, BN, ST, true>>}

#define CKTUNE_WGMMA_P(BM, BN, ST)                                                                          \
  Entry{InstanceParams{0, nullptr, Variant::WgmmaPersistent, BM, BN, 128, ST, detail::WgCfg<BM, BN, ST>::kWarps, \
                       1, 90},                                                                                   \
        &detail::launch_wgmma_persistent<detail::WgCfg<BM, BN, ST>>}

#define CKTUNE_WGMMA_P_DB(BM, BN, ST)                                                                    \
  Entry{InstanceParams{0, nullptr, Variant::WgmmaPersistentDb, BM, BN, 128, ST,                          \
                       detail::WgCfg<BM, BN, ST, true>::kWarps, 1, 90},                                  \
        &detail::launch_wgmma_persistent<detail::WgCfg<BM, BN, ST, true>>}

// Order is the id: append only once tuned tables exist (ids and names are stored in them).
const std::array kTable = {
    // Decode (M <= 8): weights stream through narrow W tiles, K split across CTAs.
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 1, 1),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 1, 4),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 1, 8),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 1, 16),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 2, 2),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 2, 4),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 2, 8),
    CKTUNE_MMA(8, 32, 2, 1, 2, 3, 4, 4),
    CKTUNE_MMA(8, 32, 2, 1, 2, 3, 4, 8),
    // Small M (<= 16).
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 1, 1),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 1, 4),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 1, 8),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 1, 16),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 2, 2),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 2, 4),
    CKTUNE_MMA(16, 128, 8, 1, 1, 4, 1, 2),
    CKTUNE_MMA(16, 128, 8, 1, 1, 4, 1, 4),
    // Medium M on the warp MMA.
    CKTUNE_MMA(32, 64, 4, 1, 1, 4, 1, 1),
    CKTUNE_MMA(32, 64, 4, 1, 1, 4, 1, 4),
    CKTUNE_MMA(32, 64, 4, 1, 1, 4, 1, 8),
    CKTUNE_MMA(32, 128, 4, 1, 2, 4, 1, 1),
    CKTUNE_MMA(32, 128, 4, 1, 2, 4, 1, 2),
    CKTUNE_MMA(64, 128, 4, 2, 1, 4, 1, 1),
    CKTUNE_MMA(64, 128, 4, 2, 1, 4, 1, 2),
    // Large tiles on the warp MMA: the prefill path where wgmma cannot run (pre-Hopper).
    CKTUNE_MMA(128, 128, 2, 4, 1, 3, 1, 1),
    CKTUNE_MMA(128, 128, 2, 4, 1, 3, 1, 2),
    // wgmma + TMA, warp-specialised: prefill, and medium M with split-K.
    CKTUNE_WGMMA(128, 128, 4, 1),
    CKTUNE_WGMMA(128, 128, 4, 2),
    CKTUNE_WGMMA(128, 128, 5, 1),
    CKTUNE_WGMMA(128, 64, 6, 1),
    CKTUNE_WGMMA(128, 64, 6, 2),
    CKTUNE_WGMMA(64, 128, 6, 1),
    CKTUNE_WGMMA(64, 128, 6, 2),
    CKTUNE_WGMMA(64, 128, 6, 4),
    CKTUNE_WGMMA(64, 64, 8, 1),
    CKTUNE_WGMMA(64, 64, 8, 2),
    CKTUNE_WGMMA(64, 64, 8, 4),
    // Same, with two partial tiles in flight per warpgroup (ptxas serialises these; measured, kept
    // as candidates: see docs/perf/gpu_gemm.md).
    CKTUNE_WGMMA_DB(128, 128, 4, 1),
    CKTUNE_WGMMA_DB(64, 128, 6, 1),
    // Persistent (one CTA per SM walks the tiles), TMA-store epilogue: prefill.
    CKTUNE_WGMMA_P(128, 128, 4),
    CKTUNE_WGMMA_P(128, 128, 5),
    CKTUNE_WGMMA_P(128, 64, 6),
    CKTUNE_WGMMA_P(64, 128, 6),
    CKTUNE_WGMMA_P(64, 64, 8),
    // Persistent, k-blocks in pairs: one block's promotion overlaps the next block's wgmma.
    CKTUNE_WGMMA_P_DB(128, 128, 4),
    CKTUNE_WGMMA_P_DB(128, 128, 5),
    CKTUNE_WGMMA_P_DB(128, 64, 6),
    CKTUNE_WGMMA_P_DB(64, 128, 6),
};
#undef CKTUNE_MMA
#undef CKTUNE_WGMMA
#undef CKTUNE_WGMMA_P
#undef CKTUNE_WGMMA_P_DB
#undef CKTUNE_WGMMA_DB

struct Table {
  std::array<InstanceParams, kTable.size()> params{};
  std::array<std::string, kTable.size()> names;
  Table() {
    for (size_t i = 0; i < kTable.size(); ++i) {
      params[i] = kTable[i].params;
      params[i].id = static_cast<int>(i);
      names[i] = instance_name(params[i]);
      params[i].name = names[i].c_str();
    }
  }
};

const Table& table() {
  static const Table t;
  return t;
}

}  // namespace

std::string_view to_string(Variant v) {
  return enum_text(kVariantNames, v, "?");
}

std::string instance_name(const InstanceParams& p) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s_m%d_n%d_k%d_st%d_w%d_sk%d", std::string(to_string(p.variant)).c_str(),
                p.tile_m, p.tile_n, p.tile_k, p.stages, p.warps, p.split_k);
  return buf;
}

std::span<const InstanceParams> instances() { return table().params; }

const char* why_not(const InstanceParams& p, int M, int N, int K, int sm) {
  if (M <= 0 || N <= 0 || K <= 0) return "M, N and K must be positive";
#if defined(CKTUNE_HIP)
  (void)p;
  (void)sm;
  if (K % 128 != 0) return "K is not a multiple of 128: a8w8_blockscale needs whole 128-wide K scale blocks";
  return "no AMD implementation of this instance yet (its inner loops are NVIDIA-only)";
#endif
  if (K % 128 != 0) return "K is not a multiple of 128: a8w8_blockscale needs whole 128-wide K scale blocks";
  if (sm < p.min_sm) return "the device is too old for this instance's code path";
  if (p.split_k > K / 128) return "split_k exceeds the number of 128-wide K blocks";
  const bool persistent = p.variant == Variant::WgmmaPersistent || p.variant == Variant::WgmmaPersistentDb;
  const bool hopper_path = p.variant == Variant::Wgmma || p.variant == Variant::WgmmaDb || persistent;
  if (hopper_path && sm != 90) return "wgmma/TMA path is built for sm_90a only";
  if (persistent && N % 8 != 0) return "the TMA-store epilogue needs N to be a multiple of 8 (16-byte output rows)";
  if (p.variant == Variant::WgmmaPersistentDb && (K / 128) % 2 != 0)
    return "this variant processes 128-K blocks in pairs: K/128 must be even";
  return nullptr;
}

size_t workspace_bytes(const InstanceParams& p, int M, int N, int K) {
  (void)K;
  // Warp-MMA split-K reduces inside a cluster (no scratch); wgmma split-K uses fp32 partials.
  if (p.split_k <= 1 || p.variant == Variant::SplitKMma) return 0;
  return detail::counter_region_bytes(M, N) + align_up(static_cast<size_t>(p.split_k) * M * N * sizeof(float));
}

gpu::ErrorCode prepare_workspace(void* workspace, size_t bytes, gpu::Stream stream) {
  if (workspace == nullptr || bytes == 0) return gpu::kSuccess;
  return gpu::rt::memset_async(workspace, 0, bytes, stream);
}

gpu::ErrorCode launch(const InstanceParams& p, const Args& a, gpu::Stream stream) {
  if (p.id < 0 || static_cast<size_t>(p.id) >= kTable.size()) return gpu::kErrorInvalidValue;
  if (why_not(p, a.M, a.N, a.K) != nullptr) return gpu::kErrorInvalidValue;
  if (a.workspace_bytes < workspace_bytes(p, a.M, a.N, a.K)) return gpu::kErrorInvalidValue;
  // A failed runtime call elsewhere leaves a sticky "last error" that our post-launch check would
  // report as ours; start clean.
  (void)gpu::get_last_error();
  return kTable[p.id].launch(p, a, stream);
}

int default_instance(int M, int N, int K, int sm_count, int sm) {
  // Untuned rule of thumb, written before any measurement was tuned into it: pick a tile family
  // by M (warp MMA for decode, wgmma from M > 16 on sm_90), then the smallest split count of that
  // family that gives every SM at least one CTA. Tuning replaces this per shape.
  const auto all = instances();
  Variant v = Variant::SplitKMma;
  int tm = 8, tn = 64, st = 4;
  if (sm == 90 && M > 512 && N % 8 == 0) {
    for (const auto& p : all)
      if (p.variant == Variant::WgmmaPersistent && p.tile_m == 128 && p.tile_n == 128 && p.stages == 4) return p.id;
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
