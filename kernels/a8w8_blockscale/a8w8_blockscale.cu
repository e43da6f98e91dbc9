// The a8w8_blockscale instance table: plain data, the can-run rules, launch, and the untuned
// default heuristic. Kernel bodies live in mma_splitk.cuh and wgmma.cuh.
#include "a8w8_blockscale.hpp"

#include <array>
#include <atomic>
#include <cstdio>

#include "mma_splitk.cuh"
#include "wgmma.cuh"

namespace cktune::kernels::a8w8_blockscale {
namespace {

using detail::MmaArgs;
using detail::MmaCfg;

using LaunchFn = gpu::ErrorCode (*)(const InstanceParams&, const Args&, gpu::Stream);

constexpr size_t kAlign = 256;
constexpr size_t align_up(size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

// Opt in to more than 48 KB of dynamic shared memory once per kernel (host call, no sync).
template <class Kernel>
gpu::ErrorCode ensure_smem(Kernel k, int bytes, std::atomic<bool>& done) {
  if (bytes <= 48 * 1024 || done.load(std::memory_order_relaxed)) return gpu::kSuccess;
  const gpu::ErrorCode e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  if (e == gpu::kSuccess) done.store(true, std::memory_order_relaxed);
  return e;
}

size_t counter_bytes(const InstanceParams& p, int M, int N) {
  const size_t tiles = static_cast<size_t>((N + p.tile_n - 1) / p.tile_n) * ((M + p.tile_m - 1) / p.tile_m);
  return align_up(tiles * sizeof(int));
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
  if (p.split_k > 1) {
    auto* ws = static_cast<uint8_t*>(a.workspace);
    m.counters = reinterpret_cast<int*>(ws);
    m.partials = reinterpret_cast<float*>(ws + counter_bytes(p, a.M, a.N));
  }
  const dim3 grid((a.N + C::kBN - 1) / C::kBN, (a.M + C::kBM - 1) / C::kBM, p.split_k);
  kernel<<<grid, C::kThreads, C::kSmemBytes, stream>>>(m);
  return cudaGetLastError();
}

struct Entry {
  InstanceParams params;
  LaunchFn launch;
};

// One row per kernel configuration and split count.
#define CKTUNE_MMA(BM, BN, WN, WM, WK, ST, SK)                                                   \
  Entry{InstanceParams{0, nullptr, Variant::SplitKMma, BM, BN, 128, ST, (WN) * (WM) * (WK), SK, \
                       89},                                                                      \
        &launch_mma<MmaCfg<BN, BM, WN, WM, WK, ST>>}
#define CKTUNE_WGMMA(BM, BN, ST)                                                                  \
  Entry{InstanceParams{0, nullptr, Variant::Wgmma, BM, BN, 128, ST, detail::WgCfg<BM, BN, ST>::kWarps, \
                       1, 90},                                                                    \
        &detail::launch_wgmma<detail::WgCfg<BM, BN, ST>>}

// Order is the id: append only, never reorder (ids and names are stored in tuned tables).
const std::array kTable = {
    // Decode: M <= 8, weights stream through 64/32-row W tiles, K split across CTAs.
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 1),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 4),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 8),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 16),
    CKTUNE_MMA(8, 32, 2, 1, 2, 6, 4),
    CKTUNE_MMA(8, 32, 2, 1, 2, 6, 8),
    CKTUNE_MMA(8, 32, 2, 1, 2, 6, 16),
    // Small M (<= 16).
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 1),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 4),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 8),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 16),
    CKTUNE_MMA(16, 128, 8, 1, 1, 4, 2),
    CKTUNE_MMA(16, 128, 8, 1, 1, 4, 4),
    CKTUNE_MMA(16, 128, 8, 1, 1, 4, 8),
    // Medium M (32..512).
    CKTUNE_MMA(32, 64, 4, 1, 1, 4, 1),
    CKTUNE_MMA(32, 64, 4, 1, 1, 4, 4),
    CKTUNE_MMA(32, 64, 4, 1, 1, 4, 8),
    CKTUNE_MMA(32, 128, 4, 1, 2, 4, 1),
    CKTUNE_MMA(32, 128, 4, 1, 2, 4, 2),
    CKTUNE_MMA(32, 128, 4, 1, 2, 4, 4),
    CKTUNE_MMA(64, 128, 4, 2, 1, 4, 1),
    CKTUNE_MMA(64, 128, 4, 2, 1, 4, 2),
    CKTUNE_MMA(64, 128, 4, 2, 1, 4, 4),
    // Large tiles on the warp MMA (fallback for prefill where wgmma cannot run).
    CKTUNE_MMA(128, 128, 2, 4, 1, 3, 1),
    CKTUNE_MMA(128, 128, 2, 4, 1, 3, 2),
    // Prefill: wgmma + TMA, warp-specialised.
    CKTUNE_WGMMA(128, 128, 4),
    CKTUNE_WGMMA(128, 128, 6),
    CKTUNE_WGMMA(128, 64, 6),
    CKTUNE_WGMMA(64, 128, 6),
};
#undef CKTUNE_MMA
#undef CKTUNE_WGMMA

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
  for (const auto& e : kVariantNames)
    if (e.value == v) return e.text;
  return "?";
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
  if (K % 128 != 0) return "K is not a multiple of 128: a8w8_blockscale needs whole 128-wide K scale blocks";
  if (sm < p.min_sm) return "the device is too old for this instance's code path";
  if (p.split_k > K / 128) return "split_k exceeds the number of 128-wide K blocks";
  if (p.variant == Variant::Wgmma && sm != 90) return "wgmma/TMA path is built for sm_90a only";
  return nullptr;
}

size_t workspace_bytes(const InstanceParams& p, int M, int N, int K) {
  (void)K;
  if (p.split_k <= 1) return 0;
  return counter_bytes(p, M, N) + align_up(static_cast<size_t>(p.split_k) * M * N * sizeof(float));
}

gpu::ErrorCode prepare_workspace(void* workspace, size_t bytes, gpu::Stream stream) {
  if (workspace == nullptr || bytes == 0) return gpu::kSuccess;
  return cudaMemsetAsync(workspace, 0, bytes, stream);
}

gpu::ErrorCode launch(const InstanceParams& p, const Args& a, gpu::Stream stream) {
  if (p.id < 0 || static_cast<size_t>(p.id) >= kTable.size()) return cudaErrorInvalidValue;
  if (why_not(p, a.M, a.N, a.K) != nullptr) return cudaErrorInvalidValue;
  if (a.workspace_bytes < workspace_bytes(p, a.M, a.N, a.K)) return cudaErrorInvalidValue;
  return kTable[p.id].launch(p, a, stream);
}

int default_instance(int M, int N, int K, int sm_count) {
  // Untuned rule of thumb: pick the tile family by M, then the smallest split count that puts
  // about two CTAs on every SM. Tuning replaces this per shape.
  const auto all = instances();
  const int kb = K / 128;
  int tm = 8, tn = 64;
  if (M > 8) tm = 16;
  if (M > 16) tm = 32;
  if (M > 32) { tm = 64; tn = 128; }
  if (M > 256) { tm = 128; tn = 128; }
  if (M > 512) {
    for (const auto& p : all)
      if (p.variant == Variant::Wgmma && p.tile_m == 128 && p.tile_n == 128) return p.id;
  }
  const long tiles = static_cast<long>((N + tn - 1) / tn) * ((M + tm - 1) / tm);
  int best = -1;
  for (const auto& p : all) {
    if (p.variant != Variant::SplitKMma || p.tile_m != tm || p.tile_n != tn || p.split_k > kb) continue;
    if (best < 0) best = p.id;
    if (tiles * all[best].split_k >= 2L * sm_count) break;
    best = p.id;
  }
  return best < 0 ? 0 : best;
}

}  // namespace cktune::kernels::a8w8_blockscale
