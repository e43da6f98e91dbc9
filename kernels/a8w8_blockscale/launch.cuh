#pragma once
// What the instance tables of a8w8_blockscale.cu and a8w8_pertoken.cu share: the launch functions of the
// warp-MMA kernel (the wgmma ones live in wgmma.cuh), the table entry, and one macro per code path.
// Private to kernels/a8w8_blockscale.
#include <array>
#include <atomic>
#include <span>
#include <string>

#include "../common/instance_table.hpp"
#include "a8w8_blockscale.hpp"
#include "gemv.cuh"
#include "mma_direct.cuh"
#include "mma_splitk.cuh"
#if defined(CKTUNE_CUDA)
#include "wgmma.cuh"
#include "wgmma_swap.cuh"
#endif

namespace cktune::kernels::a8w8_blockscale {
#if !defined(CKTUNE_CUDA)
// HIP build: the wgmma configurations exist only as names (see why_not()).
namespace detail {
template <int BM, int BN, int ST, bool DB = false, Scaling SC = Scaling::Block128, int KG = 1, bool FA = false,
          int MC = 0, bool TAIL = false, int MINB = 1>
struct WgCfg {
  static constexpr int kWarps = ((BM / 64) * KG + 1) * 4;  // as wgmma.cuh's, so names match across builds
};
template <class C>
gpu::ErrorCode launch_wgmma(const InstanceParams&, const Args&, gpu::Stream) {
  return gpu::kErrorNotSupported;
}
template <class C>
gpu::ErrorCode launch_wgmma_persistent(const InstanceParams&, const Args&, gpu::Stream) {
  return gpu::kErrorNotSupported;
}
template <int BT, int BW, int ST, Scaling SC>
struct SwapCfg {
  static constexpr int kWarps = (BW / 64 + 1) * 4;  // as wgmma_swap.cuh's
};
template <class C>
gpu::ErrorCode launch_wgmma_swap(const InstanceParams&, const Args&, gpu::Stream) {
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
// The warp-MMA kernels' arguments for split count S.
inline MmaArgs mma_args(const Args& a, int S) {
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
  m.S = S;
  return m;
}

template <class C>
gpu::ErrorCode launch_mma(const InstanceParams& p, const Args& a, gpu::Stream stream) {
  static std::atomic<int> smem_set{0};
  auto kernel = detail::mma_splitk_kernel<C>;
  if (auto e = gpu::allow_dynamic_shared_memory(kernel, C::kSmemBytes, smem_set); e != gpu::kSuccess) return e;
  MmaArgs m = mma_args(a, p.split_k);
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
  }
  return gpu::launch(kernel, grid, dim3(C::kThreads), C::kSmemBytes, stream,
                     gpu::LaunchOpts{dim3(1, 1, static_cast<unsigned>(p.split_k)), false}, m);
}
template <class C>
gpu::ErrorCode launch_mma_direct(const InstanceParams&, const Args& a, gpu::Stream stream) {
  static std::atomic<int> smem_set{0};
  auto kernel = detail::mma_direct_kernel<C>;
  const size_t smem = detail::direct_smem_bytes(C::kWarps, C::kTM, a.M, a.K);
  if (auto e = gpu::allow_dynamic_shared_memory(kernel, static_cast<int>(smem), smem_set); e != gpu::kSuccess) return e;
  const MmaArgs m = mma_args(a, 1);
  // One CTA a group of 16 weight rows.
  const dim3 grid((a.N + C::kRows - 1) / C::kRows);
  return gpu::launch(kernel, grid, dim3(C::kThreads), smem, stream, gpu::LaunchOpts{}, m);
}
template <class C>
gpu::ErrorCode launch_gemv(const InstanceParams&, const Args& a, gpu::Stream stream) {
  const MmaArgs m = mma_args(a, 1);
  // One CTA a group of kRows weight rows; the reduction's few floats are static shared memory.
  const dim3 grid((a.N + C::kRows - 1) / C::kRows);
  return gpu::launch(detail::gemv_kernel<C>, grid, dim3(C::kThreads), 0, stream, gpu::LaunchOpts{}, m);
}
#else
// The AMD implementations of these code paths come with the MFMA inner loops (docs/arch/kernels.md);
// until then why_not() rejects every instance on a HIP build and launch() never gets here.
template <class C>
gpu::ErrorCode launch_mma(const InstanceParams&, const Args&, gpu::Stream) {
  return gpu::kErrorNotSupported;
}
template <class C>
gpu::ErrorCode launch_mma_direct(const InstanceParams&, const Args&, gpu::Stream) {
  return gpu::kErrorNotSupported;
}
template <class C>
gpu::ErrorCode launch_gemv(const InstanceParams&, const Args&, gpu::Stream) {
  return gpu::kErrorNotSupported;
}
#endif

using Entry = TableEntry<InstanceParams, LaunchFn>;

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

#define CKTUNE_WGMMA_K(BM, BN, ST, SK, KG)                                                                   \
  Entry{InstanceParams{0, nullptr, Variant::WgmmaK, BM, BN, 128, ST,                                        \
                       detail::WgCfg<BM, BN, ST, false, SC, KG>::kWarps, SK, 90, SC},                        \
        &detail::launch_wgmma<detail::WgCfg<BM, BN, ST, false, SC, KG>>}

#define CKTUNE_WGMMA_P(BM, BN, ST)                                                                          \
  Entry{InstanceParams{0, nullptr, Variant::WgmmaPersistent, BM, BN, 128, ST, detail::WgCfg<BM, BN, ST, false, SC>::kWarps, \
                       1, 90, SC},                                                                               \
        &detail::launch_wgmma_persistent<detail::WgCfg<BM, BN, ST, false, SC>>}

#define CKTUNE_WGMMA_P_DB(BM, BN, ST)                                                                    \
  Entry{InstanceParams{0, nullptr, Variant::WgmmaPersistentDb, BM, BN, 128, ST,                          \
                       detail::WgCfg<BM, BN, ST, true, SC>::kWarps, 1, 90, SC},                              \
        &detail::launch_wgmma_persistent<detail::WgCfg<BM, BN, ST, true, SC>>}

// Persistent with two partial tiles taking turns, in clusters of two CTAs that share one operand by TMA multicast:
// MC 1 = neighbouring M tiles share W (wgmmap2mw), 2 = neighbouring N tiles share X (wgmmap2mx).
#define CKTUNE_WGMMA_P_DB_MC(BM, BN, ST, MC)                                                                   \
  Entry{InstanceParams{0, nullptr, (MC) == 1 ? Variant::WgmmaPersistentDbMcW : Variant::WgmmaPersistentDbMcX, BM, BN, \
                       128, ST, detail::WgCfg<BM, BN, ST, true, SC, 1, false, MC>::kWarps, 1, 90, SC},          \
        &detail::launch_wgmma_persistent<detail::WgCfg<BM, BN, ST, true, SC, 1, false, MC>>}

// Persistent with two partial tiles taking turns, the tiles past the last whole wave split along K (wgmmap2t).
#define CKTUNE_WGMMA_P_DB_T(BM, BN, ST)                                                                       \
  Entry{InstanceParams{0, nullptr, Variant::WgmmaPersistentDbTail, BM, BN, 128, ST,                         \
                       detail::WgCfg<BM, BN, ST, true, SC, 1, false, 0, true>::kWarps, 1, 90, SC},           \
        &detail::launch_wgmma_persistent<detail::WgCfg<BM, BN, ST, true, SC, 1, false, 0, true>>}

// The grid kernel compiled for two CTAs an SM (WgCfg MINB = 2: at most launch_regs(threads, 2) registers a thread
// at launch, the consumers' share after setmaxnreg from WgCfg).
#define CKTUNE_WGMMA_2CTA(BM, BN, ST, SK)                                                                   \
  Entry{InstanceParams{0, nullptr, Variant::Wgmma, BM, BN, 128, ST,                                         \
                       detail::WgCfg<BM, BN, ST, false, SC, 1, false, 0, false, 2>::kWarps, SK, 90, SC},     \
        &detail::launch_wgmma<detail::WgCfg<BM, BN, ST, false, SC, 1, false, 0, false, 2>>}

// Fast accumulation (per-token tables only): grid and persistent.
#define CKTUNE_WGMMA_F(BM, BN, ST, SK)                                                                      \
  Entry{InstanceParams{0, nullptr, Variant::WgmmaFast, BM, BN, 128, ST,                                     \
                       detail::WgCfg<BM, BN, ST, false, SC, 1, true>::kWarps, SK, 90, SC},                  \
        &detail::launch_wgmma<detail::WgCfg<BM, BN, ST, false, SC, 1, true>>}
#define CKTUNE_WGMMA_PF(BM, BN, ST)                                                                         \
  Entry{InstanceParams{0, nullptr, Variant::WgmmaPersistentFast, BM, BN, 128, ST,                           \
                       detail::WgCfg<BM, BN, ST, false, SC, 1, true>::kWarps, 1, 90, SC},                   \
        &detail::launch_wgmma_persistent<detail::WgCfg<BM, BN, ST, false, SC, 1, true>>}

// Warp MMA fed from registers for decode: TM token rows (tile_m), 16 weight rows (tile_n), WK warps along K,
// RING k-blocks in flight a warp (stages).
#define CKTUNE_MMA_DIRECT(TM, WK, RING)                                                                   \
  Entry{InstanceParams{0, nullptr, Variant::DirectMma, TM, 16, 128, RING, WK, 1, 89, SC},                  \
        &launch_mma_direct<detail::DirectCfg<TM, WK, RING, SC>>}

// CUDA-core decode: TM token rows (tile_m), ROWS weight rows a CTA (tile_n, 8 a warp), W warps, RING 512-byte
// chunks a warp has in flight (stages); tile_k = 512, the K bytes of one warp load. H16: f16 sums (`gemvh`).
#define CKTUNE_GEMV(TM, ROWS, W, RING, H16)                                                                 \
  Entry{InstanceParams{0, nullptr, (H16) ? Variant::GemvHalf : Variant::Gemv, TM, ROWS, 512, RING, W, 1, 89, SC}, \
        &launch_gemv<detail::GemvCfg<TM, ROWS, W, RING, H16, SC>>}

// Swapped operands for decode: BT token rows (tile_m), BW weight rows (tile_n), split S.
#define CKTUNE_WGMMA_SWAP(BT, BW, ST, SK)                                                                   \
  Entry{InstanceParams{0, nullptr, Variant::WgmmaSwap, BT, BW, 128, ST, detail::SwapCfg<BT, BW, ST, SC>::kWarps, SK, \
                       90, SC},                                                                               \
        &detail::launch_wgmma_swap<detail::SwapCfg<BT, BW, ST, SC>>}

// The rows the tables are built from (each table defines SC, the Scaling its macros build entries for).
// Warp MMA, split-K (every table): decode M <= 8 (narrow W tiles, K split across CTAs: n64 k128 sk
// 1/4/8/16, k256 sk 2/4/8, n32 k512 with two K-warps sk 4/8), M <= 16 (n64 k128 sk 1/4/8/16, k256 sk 2/4,
// n128 sk 2/4), medium M (m32 n64 sk 1/4/8, m32 n128 two K-warps sk 1/2, m64 n128 sk 1/2) and 128x128
// tiles (sk 1/2), the prefill path where wgmma cannot run (pre-Hopper).
#define CKTUNE_MMA_ROWS \
  CKTUNE_MMA(8, 64, 4, 1, 1, 4, 1, 1), \
  CKTUNE_MMA(8, 64, 4, 1, 1, 4, 1, 4), \
  CKTUNE_MMA(8, 64, 4, 1, 1, 4, 1, 8), \
  CKTUNE_MMA(8, 64, 4, 1, 1, 4, 1, 16), \
  CKTUNE_MMA(8, 64, 4, 1, 1, 4, 2, 2), \
  CKTUNE_MMA(8, 64, 4, 1, 1, 4, 2, 4), \
  CKTUNE_MMA(8, 64, 4, 1, 1, 4, 2, 8), \
  CKTUNE_MMA(8, 32, 2, 1, 2, 3, 4, 4), \
  CKTUNE_MMA(8, 32, 2, 1, 2, 3, 4, 8), \
  CKTUNE_MMA(16, 64, 4, 1, 1, 4, 1, 1), \
  CKTUNE_MMA(16, 64, 4, 1, 1, 4, 1, 4), \
  CKTUNE_MMA(16, 64, 4, 1, 1, 4, 1, 8), \
  CKTUNE_MMA(16, 64, 4, 1, 1, 4, 1, 16), \
  CKTUNE_MMA(16, 64, 4, 1, 1, 4, 2, 2), \
  CKTUNE_MMA(16, 64, 4, 1, 1, 4, 2, 4), \
  CKTUNE_MMA(16, 128, 8, 1, 1, 4, 1, 2), \
  CKTUNE_MMA(16, 128, 8, 1, 1, 4, 1, 4), \
  CKTUNE_MMA(32, 64, 4, 1, 1, 4, 1, 1), \
  CKTUNE_MMA(32, 64, 4, 1, 1, 4, 1, 4), \
  CKTUNE_MMA(32, 64, 4, 1, 1, 4, 1, 8), \
  CKTUNE_MMA(32, 128, 4, 1, 2, 4, 1, 1), \
  CKTUNE_MMA(32, 128, 4, 1, 2, 4, 1, 2), \
  CKTUNE_MMA(64, 128, 4, 2, 1, 4, 1, 1), \
  CKTUNE_MMA(64, 128, 4, 2, 1, 4, 1, 2), \
  CKTUNE_MMA(128, 128, 2, 4, 1, 3, 1, 1), \
  CKTUNE_MMA(128, 128, 2, 4, 1, 3, 1, 2)

// wgmma + TMA, warp-specialised grid kernels: prefill, and medium M with split-K.
#define CKTUNE_WGMMA_ROWS \
  CKTUNE_WGMMA(128, 128, 4, 1), \
  CKTUNE_WGMMA(128, 128, 4, 2), \
  CKTUNE_WGMMA(128, 128, 5, 1), \
  CKTUNE_WGMMA(128, 64, 6, 1), \
  CKTUNE_WGMMA(128, 64, 6, 2), \
  CKTUNE_WGMMA(64, 128, 6, 1), \
  CKTUNE_WGMMA(64, 128, 6, 2), \
  CKTUNE_WGMMA(64, 128, 6, 4), \
  CKTUNE_WGMMA(64, 64, 8, 1), \
  CKTUNE_WGMMA(64, 64, 8, 2), \
  CKTUNE_WGMMA(64, 64, 8, 4)

// The grid kernels with two partial tiles that take turns (one block's promotion overlaps the next block's wgmma).
#define CKTUNE_WGMMA_DB_ROWS \
  CKTUNE_WGMMA_DB(128, 128, 4, 1), \
  CKTUNE_WGMMA_DB(64, 128, 6, 1)

// Persistent (one CTA per SM walks the tiles), TMA-store epilogue: prefill.
#define CKTUNE_WGMMA_P_ROWS \
  CKTUNE_WGMMA_P(128, 128, 4), \
  CKTUNE_WGMMA_P(128, 128, 5), \
  CKTUNE_WGMMA_P(128, 64, 6), \
  CKTUNE_WGMMA_P(64, 128, 6), \
  CKTUNE_WGMMA_P(64, 64, 8)

// Persistent, two partial tiles that take turns.
#define CKTUNE_WGMMA_P_DB_ROWS \
  CKTUNE_WGMMA_P_DB(128, 128, 4), \
  CKTUNE_WGMMA_P_DB(128, 128, 5), \
  CKTUNE_WGMMA_P_DB(128, 64, 6), \
  CKTUNE_WGMMA_P_DB(64, 128, 6)

// Persistent with two partial tiles taking turns, six 128 x 128 stages (room made by the unpadded TMA-store
// boxes). Block table only; appended after the first ids were written.
#define CKTUNE_WGMMA_P_DB_DEEP_ROWS \
  CKTUNE_WGMMA_P_DB(128, 128, 6)

// Persistent, partial tiles taking turns, clusters of two sharing W or X by multicast (issue #13's 2 x 1 clusters).
// Block table only; appended after the first ids were written.
// (Five stages timed the same as six on 28 shapes, 2026-11-29: one row each.)
#define CKTUNE_WGMMA_P_DB_MC_ROWS \
  CKTUNE_WGMMA_P_DB_MC(128, 128, 6, 1), \
  CKTUNE_WGMMA_P_DB_MC(128, 128, 6, 2)

// Persistent, partial tiles taking turns, the last partial wave's tiles split along K over the idle CTAs. Block
// table only; appended after the first ids were written.
// (A 128 x 64 row was measured too, 2026-11-29, and never beat the plain 128 x 64 one.)
#define CKTUNE_WGMMA_P_DB_T_ROWS \
  CKTUNE_WGMMA_P_DB_T(128, 128, 6)

// N tiles of 192: per-token tables only (block scales need BN | 128, one weight scale per tile).
#define CKTUNE_WGMMA_N192_ROWS \
  CKTUNE_WGMMA(128, 192, 4, 1), \
  CKTUNE_WGMMA_P(128, 192, 4), \
  CKTUNE_WGMMA_P(64, 192, 6)

// Two or four warpgroups per 64-row band, k-blocks in turn: medium M, where one warpgroup's chain of dependent
// wgmma (and its promotions) could not keep up with the loads (appended after the first ids were written).
#define CKTUNE_WGMMA_K_ROWS \
  CKTUNE_WGMMA_K(64, 64, 8, 1, 2), \
  CKTUNE_WGMMA_K(64, 64, 8, 2, 2), \
  CKTUNE_WGMMA_K(64, 128, 6, 1, 2), \
  CKTUNE_WGMMA_K(64, 128, 6, 2, 2), \
  CKTUNE_WGMMA_K(128, 64, 6, 1, 2), \
  CKTUNE_WGMMA_K(64, 64, 8, 1, 4), \
  CKTUNE_WGMMA_K(64, 64, 8, 2, 4)

// N tiles of 96 and 160 (per-token tables only): tile counts that fill the 132 SMs' last wave where 64, 128
// and 192 leave part of it empty (N = 4096 at M <= 384: 3 x 43 = 129 tiles of 128 x 96; N = 5120: 32 of
// 160). Grid kernels (their epilogue stores any BN of 8s); appended after the first ids were written.
#define CKTUNE_WGMMA_N96_ROWS \
  CKTUNE_WGMMA(128, 96, 6, 1), \
  CKTUNE_WGMMA(64, 96, 8, 1), \
  CKTUNE_WGMMA(128, 160, 4, 1), \
  CKTUNE_WGMMA(64, 160, 6, 1), \
  CKTUNE_WGMMA_K(64, 96, 8, 1, 2)

// Fast accumulation (per-token tables only; appended 2026-11-25 after the other ids were written): the
// k-blocks add straight into the accumulator, so a warpgroup keeps one accumulator and the tensor cores one
// k-block ahead, with no promotion between (docs/arch/kernels.md on the accuracy this trades).
#define CKTUNE_WGMMA_FAST_ROWS \
  CKTUNE_WGMMA_PF(128, 128, 5), \
  CKTUNE_WGMMA_PF(128, 192, 4), \
  CKTUNE_WGMMA_PF(128, 64, 6), \
  CKTUNE_WGMMA_PF(64, 128, 6), \
  CKTUNE_WGMMA_F(128, 128, 5, 1), \
  CKTUNE_WGMMA_F(128, 96, 6, 1), \
  CKTUNE_WGMMA_F(128, 160, 4, 1), \
  CKTUNE_WGMMA_F(128, 64, 6, 1), \
  CKTUNE_WGMMA_F(64, 128, 6, 1), \
  CKTUNE_WGMMA_F(64, 64, 8, 1), \
  CKTUNE_WGMMA_F(64, 128, 6, 2)

// Warp MMA for latency-bound decode (small K, few CTAs): a whole 256- or 512-K slice a stage, so that
// a short K is in flight at once, and 32-wide N tiles for twice the CTAs. Per-token tables only (appended
// after their first ids were written).
#define CKTUNE_MMA_LATENCY_ROWS \
  CKTUNE_MMA(8, 64, 4, 1, 1, 4, 2, 1), \
  CKTUNE_MMA(16, 64, 4, 1, 1, 4, 2, 1), \
  CKTUNE_MMA(8, 32, 2, 1, 2, 3, 4, 1), \
  CKTUNE_MMA(8, 32, 2, 1, 2, 3, 4, 2)

// Decode on swapped operands (M <= 32; every table but int8, appended after the first ids were written): a
// token tile of 8, 16 or 32 (why_not: any that holds M, so that a row tuned at one M serves the smaller ones),
// 64 or 128 weight rows a CTA.
// Unsplit: as many stages as about 200 KB of shared memory holds, one CTA an SM. Split along K (for N too
// small to give every SM a tile): stages for at most ~113 KB, so that two CTAs share an SM and a launch of
// 2- or 4-CTA clusters is resident at once (at one CTA an SM only 32 clusters of 4 are: 2026-11-25).
#define CKTUNE_WGMMA_SWAP_ROWS \
  CKTUNE_WGMMA_SWAP(8, 64, 16, 1), \
  CKTUNE_WGMMA_SWAP(8, 64, 12, 2), \
  CKTUNE_WGMMA_SWAP(8, 64, 12, 4), \
  CKTUNE_WGMMA_SWAP(8, 128, 12, 1), \
  CKTUNE_WGMMA_SWAP(8, 128, 6, 2), \
  CKTUNE_WGMMA_SWAP(16, 64, 16, 1), \
  CKTUNE_WGMMA_SWAP(16, 64, 10, 2), \
  CKTUNE_WGMMA_SWAP(16, 64, 10, 4), \
  CKTUNE_WGMMA_SWAP(16, 128, 11, 1), \
  CKTUNE_WGMMA_SWAP(16, 128, 5, 2), \
  CKTUNE_WGMMA_SWAP(32, 64, 16, 1), \
  CKTUNE_WGMMA_SWAP(32, 64, 8, 2), \
  CKTUNE_WGMMA_SWAP(32, 64, 8, 4), \
  CKTUNE_WGMMA_SWAP(32, 128, 10, 1), \
  CKTUNE_WGMMA_SWAP(32, 128, 5, 2)

// Decode on the warp MMA fed from registers (M <= 16; every table, appended after the first ids were
// written): a warp keeps RING k-blocks of 16 weight rows in flight in its registers, the CTA's WK warps take
// the k-blocks in turn and add their sums in shared memory (mma_direct.cuh). Rows that split K over a cluster
// of 2 or 4 CTAs were measured and dropped (never the fastest: docs/perf.md, 2026-11-25).
#define CKTUNE_MMA_DIRECT_ROWS \
  CKTUNE_MMA_DIRECT(8, 8, 2), \
  CKTUNE_MMA_DIRECT(8, 8, 8), \
  CKTUNE_MMA_DIRECT(8, 16, 2), \
  CKTUNE_MMA_DIRECT(8, 4, 4), \
  CKTUNE_MMA_DIRECT(16, 16, 2), \
  CKTUNE_MMA_DIRECT(16, 8, 2), \
  CKTUNE_MMA_DIRECT(16, 4, 4)

// Split-K for decode at M 17..64 where N gives few tiles (appended 2026-12-01 after the first ids were written): 64 x 64
// tiles, four stages, the grid kernel compiled for two CTAs an SM (WgCfg MINB = 2), so that all of a launch's 1 x 1 x 4
// clusters are resident at once: at one CTA an SM about 30 clusters of 4 are, and N = 2112's 33 tiles ran in two waves
// (st8_w8_sk4). 5-8% faster than the best other row at 64 x 2112 x 7168, 3-4% at 32 x 2112 x 7168; six stages, the
// paired form and 1 x 1 x 3 clusters at one CTA an SM were no faster and were left out. Since the split-K reduction
// by push (the same day) the k-group sk2 rows run 2-4% faster at N = 2112; the tune still takes this row at
// 100 x 576 x 7168 (docs/perf.md, 2026-12-01).
#define CKTUNE_WGMMA_2CTA_ROWS CKTUNE_WGMMA_2CTA(64, 64, 4, 4)

// Decode on the CUDA cores at M = 1 (the row-major tables, appended 2026-11-29; int8 takes the exact-sum rows only):
// gemv.cuh. Each warp reads 512 contiguous bytes of a weight row an instruction. Rows with token tiles of 2 and 4
// were measured and left out: slower than the tensor-core decode kernels at M = 2 and 4 (docs/perf.md, 2026-11-29).
#define CKTUNE_GEMV_ROWS_OF(H) \
  CKTUNE_GEMV(1, 8, 16, 1, H), \
  CKTUNE_GEMV(1, 16, 8, 2, H), \
  CKTUNE_GEMV(1, 32, 16, 1, H), \
  CKTUNE_GEMV(1, 64, 8, 2, H)
#define CKTUNE_GEMV_ROWS CKTUNE_GEMV_ROWS_OF(false), CKTUNE_GEMV_ROWS_OF(true)

// One table: the entries of one Scaling, ids assigned in order, names built from the parameters.
template <size_t N>
struct Table : InstanceTable<InstanceParams, LaunchFn, N> {
  explicit Table(const std::array<Entry, N>& entries)
      : InstanceTable<InstanceParams, LaunchFn, N>(entries, [](const InstanceParams& p) { return instance_name(p); }) {}
};

// The two tables of a8w8_pertoken.cu (a8w8, a8w8_bpreshuffle).
std::span<const InstanceParams> pertoken_instances(Scaling s);
LaunchFn pertoken_launch(Scaling s, int id);

}  // namespace table
}  // namespace cktune::kernels::a8w8_blockscale
