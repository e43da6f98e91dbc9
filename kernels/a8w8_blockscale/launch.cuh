#pragma once
// What the instance tables of a8w8_blockscale.cu and a8w8_pertoken.cu share: the launch functions of the
// warp-MMA kernel (the wgmma ones live in wgmma.cuh), the table entry, and one macro per code path.
// Private to kernels/a8w8_blockscale.
#include <array>
#include <atomic>
#include <span>
#include <string>

#include "a8w8_blockscale.hpp"
#include "mma_splitk.cuh"
#if defined(CKTUNE_CUDA)
#include "wgmma.cuh"
#endif

namespace cktune::kernels::a8w8_blockscale {
#if !defined(CKTUNE_CUDA)
// HIP build: the wgmma configurations exist only as names (see why_not()).
namespace detail {
template <int BM, int BN, int ST, bool DB = false, Scaling SC = Scaling::Block128>
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
namespace table {

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
  Entry{InstanceParams{0, nullptr, Variant::SplitKMma, BM, BN, 128 * (KBS), ST, (WN) * (WM) * (WK), SK, 89, SC}, \
        &launch_mma<MmaCfg<BN, BM, WN, WM, WK, ST, KBS, SC>>}
#define CKTUNE_WGMMA(BM, BN, ST, SK)                                                                        \
  Entry{InstanceParams{0, nullptr, Variant::Wgmma, BM, BN, 128, ST, detail::WgCfg<BM, BN, ST, false, SC>::kWarps, SK, 90, SC}, \
        &detail::launch_wgmma<detail::WgCfg<BM, BN, ST, false, SC>>}
#define CKTUNE_WGMMA_DB(BM, BN, ST, SK)                                                                       \
  Entry{InstanceParams{0, nullptr, Variant::WgmmaDb, BM, BN, 128, ST, detail::WgCfg<BM, BN, ST, true, SC>::kWarps, \
                       SK, 90, SC},                                                                            \
        &detail::launch_wgmma<detail::WgCfg<BM, BN, ST, true, SC>>}

#define CKTUNE_WGMMA_P(BM, BN, ST)                                                                          \
  Entry{InstanceParams{0, nullptr, Variant::WgmmaPersistent, BM, BN, 128, ST, detail::WgCfg<BM, BN, ST, false, SC>::kWarps, \
                       1, 90, SC},                                                                               \
        &detail::launch_wgmma_persistent<detail::WgCfg<BM, BN, ST, false, SC>>}

#define CKTUNE_WGMMA_P_DB(BM, BN, ST)                                                                    \
  Entry{InstanceParams{0, nullptr, Variant::WgmmaPersistentDb, BM, BN, 128, ST,                          \
                       detail::WgCfg<BM, BN, ST, true, SC>::kWarps, 1, 90, SC},                              \
        &detail::launch_wgmma_persistent<detail::WgCfg<BM, BN, ST, true, SC>>}

// One table: the entries of one Scaling, ids assigned in order, names built from the parameters.
template <size_t N>
struct Table {
  std::array<InstanceParams, N> params{};
  std::array<std::string, N> names;
  std::array<LaunchFn, N> launch{};
  explicit Table(const std::array<Entry, N>& entries) {
    for (size_t i = 0; i < N; ++i) {
      params[i] = entries[i].params;
      params[i].id = static_cast<int>(i);
      names[i] = instance_name(params[i]);
      params[i].name = names[i].c_str();
      launch[i] = entries[i].launch;
    }
  }
};

// The two tables of a8w8_pertoken.cu (a8w8, a8w8_bpreshuffle).
std::span<const InstanceParams> pertoken_instances(Scaling s);
LaunchFn pertoken_launch(Scaling s, int id);

}  // namespace table
}  // namespace cktune::kernels::a8w8_blockscale
