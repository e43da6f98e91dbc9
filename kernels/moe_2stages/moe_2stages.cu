// The moe_2stages instance tables: plain data, the can-run rules, launch, and the untuned default.
// Kernel bodies live in stages.cuh.
#include "moe_2stages.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>

#include "../common/instance_table.hpp"
#include "stages.cuh"
#include "stages_wgmma.cuh"

namespace cktune::kernels::moe_2stages {

namespace {

using LaunchFn = gpu::ErrorCode (*)(const StageParams&, const Args&, gpu::Stream);

// The kernels of a pipeline start while the one before it runs where overlap_launches() says so: their
// blocks are scheduled as the previous kernel's blocks retire and wait for it to complete before they
// read anything (gpu::follow_previous_grid, the first thing every pipeline kernel does; the wgmma stages
// set up their barriers and prefetch the weights' descriptor before it).
gpu::LaunchOpts launch_opts(int tokens, int topk, unsigned cluster_z = 1) {
  return gpu::LaunchOpts{dim3(1, 1, cluster_z), overlap_launches(tokens, topk)};
}

#if defined(CKTUNE_CUDA)
// CKTUNE_MOE_STAGE1_ROUTE=0 in the environment runs every `_r` stage 1 as its plain twin (Args::route_stage1
// ignored): for before/after comparisons, or should the early requests misbehave. Read once per process.
bool stage1_may_route() {
  static const bool may = [] {
    const char* v = std::getenv("CKTUNE_MOE_STAGE1_ROUTE");
    return v == nullptr || v[0] != '0';
  }();
  return may;
}

// Sorted blocks a stage's grid covers. moe_sorting pads each expert's rows to a multiple of block_m
// and gives an expert without tokens no rows, so every used block holds at least one routed pair:
// at most tokens*topk blocks are used, far fewer than capacity/block_m when the tokens are few
// (DeepSeek-V3, 1 token, block_m 16: 8 against 256). Blocks past num_valid_ids still exit at once.
unsigned grid_blocks(const Args& a) {
  const long long pairs = static_cast<long long>(a.tokens) * a.topk;
  return static_cast<unsigned>(std::max(1ll, std::min<long long>(a.max_blocks, pairs)));
}

template <class C>
gpu::ErrorCode launch_stage1(const StageParams& p, const Args& a, gpu::Stream stream) {
  static std::atomic<int> smem_set{0};
  auto kernel = detail::stage1_kernel<C>;
  if (auto e = gpu::allow_dynamic_shared_memory(kernel, C::kSmem1, smem_set); e != gpu::kSuccess) return e;
  const dim3 grid(static_cast<unsigned>(a.inter_dim / (C::kTN / 2)), grid_blocks(a),
                  static_cast<unsigned>(p.split_k));
  return gpu::launch(kernel, grid, dim3(C::kThreads), C::kSmem1, stream,
                     launch_opts(a.tokens, a.topk, static_cast<unsigned>(p.split_k)), a, p.split_k);
}

template <class C, int KBI, bool kAcc>
gpu::ErrorCode launch_stage2_kbi(const Args& a, gpu::Stream stream) {
  static std::atomic<int> smem_set{0};
  auto kernel = detail::stage2_kernel<C, KBI, kAcc>;
  constexpr int kSmem = detail::stage2_smem<C>(KBI * 128);
  static_assert(C::kTN * C::kBM * 4 <= KBI * (C::kTN + C::kBM) * 128, "the parked tile must fit the operand bytes");
  if (auto e = gpu::allow_dynamic_shared_memory(kernel, kSmem, smem_set); e != gpu::kSuccess) return e;
  const dim3 grid(static_cast<unsigned>(a.model_dim / C::kTN), grid_blocks(a));
  return gpu::launch(kernel, grid, dim3(C::kThreads), kSmem, stream, launch_opts(a.tokens, a.topk), a);
}

template <class C, bool kAcc = false>
gpu::ErrorCode launch_stage2(const StageParams&, const Args& a, gpu::Stream stream) {
  switch (a.inter_dim / 128) {
    case 2: return launch_stage2_kbi<C, 2, kAcc>(a, stream);
    case 3: return launch_stage2_kbi<C, 3, kAcc>(a, stream);
    case 4: return launch_stage2_kbi<C, 4, kAcc>(a, stream);
    default: return gpu::kErrorNotSupported;
  }
}

// wgmma stages: the weights of every expert as one 2-D map, boxes of 64 rows (stage 1: a gate half and
// an up half of a warpgroup's 128 rows) or of the tile's rows (stage 2: 128 or 256).
template <class C, bool kS1, bool kStaged, bool kAcc, int kSplit, bool kQuant, bool kRoute, bool kDyn = false>
gpu::ErrorCode launch_wg_kernel(const CUtensorMap& mw, const Args& a, dim3 grid, int col_tiles, int group,
                                gpu::Stream stream) {
  static std::atomic<int> smem_set{0};
  auto kernel = detail::wg_stage_kernel<C, kS1, kStaged, kAcc, kSplit, kQuant, kRoute, kDyn>;
  if (auto e = gpu::allow_dynamic_shared_memory(kernel, C::kSmem, smem_set); e != gpu::kSuccess) return e;
  return gpu::launch(kernel, grid, dim3(C::kThreads), C::kSmem, stream,
                     launch_opts(a.tokens, a.topk, static_cast<unsigned>(kSplit)), mw, a, col_tiles, group);
}

template <class C, bool kS1, bool kStaged, bool kAcc = false, int kSplit = 1, bool kQuant = false, bool kDyn = false,
          bool kRouteRow = false>
gpu::ErrorCode launch_wg(const StageParams& p, const Args& a, gpu::Stream stream) {
  if (kDyn && a.tile_counter == nullptr) return gpu::kErrorInvalidValue;
  CUtensorMap mw;
  const bool made = kS1 ? gpu::tma::make_kmajor_map(&mw, a.w1q, a.experts * 2 * a.inter_dim, a.model_dim, C::kWN / 2)
                        : gpu::tma::make_kmajor_map(&mw, a.w2q, a.experts * a.model_dim, a.inter_dim, C::kTN);
  if (!made) return gpu::kErrorInvalidValue;
  // Persistent: at most kMinBlocks CTAs an SM, each taking every grid-th tile.
  const int col_tiles = (kS1 ? a.inter_dim : a.model_dim) / (kS1 ? C::kTN / 2 : C::kTN);
  const long long tiles = static_cast<long long>(col_tiles) * grid_blocks(a);
  if constexpr (kSplit > 1) {
    // Split-K: a cluster of kSplit CTAs a tile, every tile the sorted blocks can use (the unused exit).
    return launch_wg_kernel<C, kS1, kStaged, kAcc, kSplit, kQuant, false>(
        mw, a, dim3(static_cast<unsigned>(tiles), 1, kSplit), col_tiles, col_tiles, stream);
  } else {
    const int sms = gpu::current_device_multiprocessors(132);
    const dim3 grid(static_cast<unsigned>(std::max(1ll, std::min<long long>(tiles, 1ll * sms * C::kMinBlocks))));
    const int group = p.col_group > 0 ? std::min(p.col_group, col_tiles) : col_tiles;
    // A `_r` stage 1 of a pipeline routes its first tile itself (route_first_tile): a kernel of its own, so that the
    // plain rows run code without it (with a run-time switch the kernels were 0.6% slower at 512 tokens). A row of its
    // own since the routing form was 2% faster at 8 DeepSeek-V3 tokens on some H200s and 0.3-3% slower on others
    // (docs/perf.md, 2026-11-30 10:50): the tune picks it where it wins.
    if constexpr (kS1 && kRouteRow) {
      if (a.route_stage1 && stage1_may_route() && a.topk_ids != nullptr && a.topk_weights != nullptr &&
          route_fits(a.tokens, a.topk, a.experts))
        return launch_wg_kernel<C, kS1, kStaged, kAcc, kSplit, kQuant, true>(mw, a, grid, col_tiles, group, stream);
    }
    return launch_wg_kernel<C, kS1, kStaged, kAcc, kSplit, kQuant, false, kDyn>(mw, a, grid, col_tiles, group, stream);
  }
}
#else
// HIP: the MFMA inner loops of these stages do not exist yet; why_not() rejects every instance there.
template <class C>
gpu::ErrorCode launch_stage1(const StageParams&, const Args&, gpu::Stream) {
  return gpu::kErrorNotSupported;
}
template <class C, bool kAcc = false>
gpu::ErrorCode launch_stage2(const StageParams&, const Args&, gpu::Stream) {
  return gpu::kErrorNotSupported;
}
template <class C, bool kS1, bool kStaged, bool kAcc = false, int kSplit = 1, bool kQuant = false, bool kDyn = false,
          bool kRouteRow = false>
gpu::ErrorCode launch_wg(const StageParams&, const Args&, gpu::Stream) {
  return gpu::kErrorNotSupported;
}
#endif

using Entry = TableEntry<StageParams, LaunchFn>;

// Stage 1: tile_n weight rows (half gate, half up), block_m rows, WN x WM warps, ST stages, split S.
#define CKTUNE_S1(TN, BM, WN, WM, ST, S)                                                    \
  Entry{StageParams{0, nullptr, Stage::One, BM, TN, (WN) * (WM), ST, S, Engine::WarpMma},     \
        &launch_stage1<detail::Cfg<TN, BM, WN, WM, ST>>}
// Stage 2: tile_n output columns, block_m rows, WN x WM warps; K = inter resident in shared memory.
#define CKTUNE_S2(TN, BM, WN, WM)                                                           \
  Entry{StageParams{0, nullptr, Stage::Two, BM, TN, (WN) * (WM), 1, 1, Engine::WarpMma},      \
        &launch_stage2<detail::Cfg<TN, BM, WN, WM, 1>>}
// The same, adding into the output (sm_90: 16-byte bf16 atomic adds; no per-slot rows, no reduction).
#define CKTUNE_S2A(TN, BM, WN, WM)                                                                           \
  Entry{StageParams{0, nullptr, Stage::Two, BM, TN, (WN) * (WM), 1, 1, Engine::WarpMma, false, true},        \
        &launch_stage2<detail::Cfg<TN, BM, WN, WM, 1>, true>}
// wgmma stage 1: 64 gate + 64 up rows, block_m rows, ST stages; with CG = 2, 256 weight rows a tile, two consumer
// warpgroups side by side sharing the block's gathered rows (`_n256`; block_m 64, one CTA an SM).
#define CKTUNE_WG1(BM, ST, CG)                                                                                   \
  Entry{StageParams{0, nullptr, Stage::One, BM, 128 * (CG), ((BM) / 64 * (CG) + 1) * 4, ST, 1, Engine::Wgmma, false}, \
        &launch_wg<detail::WgCfg<BM, ST, false, 128 * (CG), CG>, true, false>}
// The same with k-blocks through two partial tiles that take turns (`_p2`).
#define CKTUNE_WG1P(BM, ST)                                                                                       \
  Entry{StageParams{0, nullptr, Stage::One, BM, 128, ((BM) / 64 + 1) * 4, ST, 1, Engine::Wgmma, false, false, 0, true}, \
        &launch_wg<detail::WgCfg<BM, ST, true>, true, false>}
// wgmma stage 1 split along K over a cluster of S CTAs (decode; block_m 64).
#define CKTUNE_WG1S(BM, ST, S)                                                                          \
  Entry{StageParams{0, nullptr, Stage::One, BM, 128, ((BM) / 64 + 1) * 4, ST, S, Engine::Wgmma, false},  \
        &launch_wg<detail::WgCfg<BM, ST>, true, false, false, S>}
// The 256-row stage 1 (block_m 64, two column warpgroups) re-quantising its tile for stage 2 (`_q`): a tile's 128 gated
// columns are one 1x128 group of each row, so the pipeline needs no quantize_stage1 launch between the stages.
#define CKTUNE_WG1Q(ST)                                                                                             \
  Entry{StageParams{0, nullptr, Stage::One, 64, 256, 12, ST, 1, Engine::Wgmma, false, false, 0, false, true},      \
        &launch_wg<detail::WgCfg<64, ST, false, 256, 2>, true, false, false, 1, true>}
// The routing forms (`_r`) of the decode stage-1 rows: block_m 64 with 128 weight rows, and `_q`.
#define CKTUNE_WG1R(ST)                                                                                               \
  Entry{StageParams{0, nullptr, Stage::One, 64, 128, 8, ST, 1, Engine::Wgmma, false, false, 0, false, false, false, true}, \
        &launch_wg<detail::WgCfg<64, ST>, true, false, false, 1, false, false, true>}
#define CKTUNE_WG1QR(ST)                                                                                               \
  Entry{StageParams{0, nullptr, Stage::One, 64, 256, 12, ST, 1, Engine::Wgmma, false, false, 0, false, true, false, true}, \
        &launch_wg<detail::WgCfg<64, ST, false, 256, 2>, true, false, false, 1, true, false, true>}
// wgmma stage 2: 128 output columns, block_m rows, ST stages, output rows stored directly or staged (SO).
#define CKTUNE_WG2(BM, ST, SO)                                                                        \
  Entry{StageParams{0, nullptr, Stage::Two, BM, 128, ((BM) / 64 + 1) * 4, ST, 1, Engine::Wgmma, SO},   \
        &launch_wg<detail::WgCfg<BM, ST>, false, SO>}
// The same, adding into the output (no per-slot rows, no reduction), column tiles in groups of G (0: all).
#define CKTUNE_WG2A(BM, ST, SO, G)                                                                            \
  Entry{StageParams{0, nullptr, Stage::Two, BM, 128, ((BM) / 64 + 1) * 4, ST, 1, Engine::Wgmma, SO, true, G},  \
        &launch_wg<detail::WgCfg<BM, ST>, false, SO, true>}

// The same with tiles of 256 output columns (`_n256`): CG = 1, two halves of 128 one after the other sharing each
// stage's gathered rows; CG = 2 (block_m 64, one CTA an SM), two consumer warpgroups side by side, 128 columns each.
#define CKTUNE_WG2W(BM, ST, SO, G, CG)                                                                            \
  Entry{StageParams{0, nullptr, Stage::Two, BM, 256, ((BM) / 64 * (CG) + 1) * 4, ST, 1, Engine::Wgmma, SO, true, G}, \
        &launch_wg<detail::WgCfg<BM, ST, false, 256, CG>, false, SO, true>}
// Adding stage 2 rows (128 columns, or 256 on two column warpgroups: TN = 128 * CG) whose CTAs claim their tiles past
// the first two at run time (`_dyn`, Args::tile_counter).
#define CKTUNE_WG2D(BM, ST, SO, G, CG)                                                                                  \
  Entry{StageParams{0, nullptr, Stage::Two, BM, 128 * (CG), ((BM) / 64 * (CG) + 1) * 4, ST, 1, Engine::Wgmma, SO, true, G, \
                    false, false, true},                                                                                \
        &launch_wg<detail::WgCfg<BM, ST, false, 128 * (CG), CG>, false, SO, true, 1, false, true>}

// Decode blocks (16, 32 rows) stream weights: small CTAs, split-K for the few-experts case.
// Prefill blocks (64, 128 rows) reuse each weight tile over many rows.
const std::array kStage1 = {
    CKTUNE_S1(64, 16, 2, 1, 4, 1),  CKTUNE_S1(64, 16, 2, 1, 4, 2),  CKTUNE_S1(64, 16, 2, 1, 4, 4),
    CKTUNE_S1(64, 16, 2, 1, 4, 8),  CKTUNE_S1(128, 16, 4, 1, 4, 1), CKTUNE_S1(128, 16, 4, 1, 4, 2),
    CKTUNE_S1(128, 16, 4, 1, 4, 4), CKTUNE_S1(128, 16, 4, 1, 4, 8),
    CKTUNE_S1(64, 32, 2, 1, 4, 1),  CKTUNE_S1(64, 32, 2, 1, 4, 2),  CKTUNE_S1(64, 32, 2, 1, 4, 4),
    CKTUNE_S1(128, 32, 4, 1, 4, 1), CKTUNE_S1(128, 32, 4, 1, 4, 2), CKTUNE_S1(128, 32, 4, 1, 4, 4),
    CKTUNE_S1(128, 64, 4, 2, 3, 1), CKTUNE_S1(128, 64, 4, 2, 3, 2), CKTUNE_S1(256, 64, 4, 2, 3, 1),
    CKTUNE_S1(256, 64, 4, 2, 3, 2),
    CKTUNE_S1(128, 128, 4, 2, 3, 1), CKTUNE_S1(128, 128, 4, 4, 3, 1),
    CKTUNE_WG1(64, 4, 1),            CKTUNE_WG1(128, 4, 1),           CKTUNE_WG1(128, 6, 1),
    // Split along K for the few-token shapes (2026-11-24; appended so that default_pick keeps its rows).
    // Measured and left out: 8 slices (never won at 1..8 DeepSeek-V3 tokens; 35.8 against 30.8 us at 1 token)
    // and an 8-stage ring, one CTA an SM (2 tokens: 26.3 against 25.1 us for stage 1, no better).
    CKTUNE_WG1S(64, 4, 2),           CKTUNE_WG1S(64, 4, 4),
    // Paired k-blocks (2026-11-29; appended): the fastest stage 1 at 2048 DeepSeek-V3 tokens (518.6 against 537.8 us
    // for the pipeline), a tie at 4096, slower elsewhere. Measured and left out: block_m 64 (its three partial tiles do
    // not fit the 208 registers of two CTAs an SM: ptxas spills; 512 tokens 444.6 against 383.9 us) and block_m 128
    // with 4 stages (never the fastest; docs/perf.md, 2026-11-29).
    CKTUNE_WG1P(128, 6),
    // 256 weight rows a tile, block_m 64 (2026-11-29; appended): the block's gathered rows cross L2 once for 128 output
    // columns instead of once for 64, where ncu had stage 1 77% L2-bound at 4096 DeepSeek-V3 tokens. H200, DeepSeek-V3
    // TP8, best pipeline 4096 tokens 770.5-771.2 against 784.3-799.4 us without it (docs/perf.md, 2026-11-29 14:33).
    CKTUNE_WG1(64, 4, 2),
    // The same re-quantising its tile (2026-11-30; appended): one launch and one wait between the stages fewer.
    CKTUNE_WG1Q(4),
    // The routing forms of the two decode rows (appended): until then every unsplit wgmma stage 1 routed at decode sizes.
    CKTUNE_WG1R(4), CKTUNE_WG1QR(4),
};
const std::array kStage2 = {
    CKTUNE_S2(64, 16, 2, 1),   CKTUNE_S2(128, 16, 4, 1),  CKTUNE_S2(64, 32, 2, 1), CKTUNE_S2(128, 32, 4, 1),
    CKTUNE_S2(64, 64, 2, 2),   CKTUNE_S2(128, 64, 4, 2),  CKTUNE_S2(64, 128, 2, 4),
    CKTUNE_S2(128, 128, 4, 4),
    CKTUNE_WG2(64, 4, false),  CKTUNE_WG2(128, 4, false), CKTUNE_WG2(128, 4, true),
    // Adding into the output (2026-11-24; the 128-row block-after-block order and the 128-row direct
    // stores never won a DeepSeek-V3 or Qwen3-235B token count and were left out).
    CKTUNE_WG2A(64, 4, false, 1), CKTUNE_WG2A(64, 4, true, 1), CKTUNE_WG2A(128, 4, true, 1),
    CKTUNE_WG2A(128, 4, true, 4), CKTUNE_WG2A(128, 6, true, 4), CKTUNE_WG2A(128, 6, true, 1),
    // Decode blocks adding into the output (2026-11-24; appended so that default_pick keeps its rows).
    CKTUNE_S2A(64, 16, 2, 1),     CKTUNE_S2A(128, 16, 4, 1),     CKTUNE_S2A(64, 32, 2, 1),
    CKTUNE_S2A(128, 32, 4, 1),
    // 256-column tiles (2026-11-29; appended): the gathered rows cross L2 once for both halves, where ncu had stage 2
    // 75-85% L2-bound in prefill. H200, DeepSeek-V3 TP8, best pipeline with one against one without: 2048 tokens
    // 0.972-0.973, 4096 0.980-0.984, 8192 0.948-0.955, 16384 0.983-0.984 (docs/perf.md, 2026-11-29 11:40).
    CKTUNE_WG2W(128, 4, true, 1, 1), CKTUNE_WG2W(128, 4, true, 4, 1),
    // 256-column tiles on block_m 64: the two column warpgroups of stage 1's `_n256` rows. H200, DeepSeek-V3 TP8, best
    // pipeline with one against the best block_m 64 one without: 4096 tokens 0.960-0.974, 8192 0.934-0.959, 512-2048
    // 0.990-1.001 (docs/perf.md, 2026-11-29 16:27).
    CKTUNE_WG2W(64, 4, true, 1, 2), CKTUNE_WG2W(64, 4, true, 4, 2),
    // The 256-column block_m 64 row with its tiles claimed at run time (2026-11-30; appended). H200, DeepSeek-V3 TP8,
    // three rounds against its static twin: 16-512 tokens 0.986-1.001, the best pipeline at 32, 64 and 512 tokens (64:
    // 310.4-312.1 against 312.8-313.2 us). The same for the 128-column rows (two CTAs an SM) was 0.987-1.016 at 8-512
    // tokens, mostly slower at 8-64, and was left out (docs/perf.md, 2026-11-30 10:50).
    CKTUNE_WG2D(64, 4, true, 1, 2),
};
#undef CKTUNE_S1
#undef CKTUNE_S2
#undef CKTUNE_S2A
#undef CKTUNE_WG1
#undef CKTUNE_WG1S
#undef CKTUNE_WG1P
#undef CKTUNE_WG1Q
#undef CKTUNE_WG1R
#undef CKTUNE_WG1QR
#undef CKTUNE_WG2
#undef CKTUNE_WG2A
#undef CKTUNE_WG2W
#undef CKTUNE_WG2D

std::string stage1_name(const StageParams& s) {
  return s.engine == Engine::Wgmma
             ? "cktune_moe_s1wg_bm" + std::to_string(s.block_m) + "_n" + std::to_string(s.tile_n) + "_st" +
                   std::to_string(s.stages) + (s.split_k > 1 ? "_sk" + std::to_string(s.split_k) : "") +
                   (s.paired ? "_p2" : "") + (s.requantize ? "_q" : "") + (s.route ? "_r" : "")
             : "cktune_moe_s1_bm" + std::to_string(s.block_m) + "_n" + std::to_string(s.tile_n) + "_w" +
                   std::to_string(s.warps) + "_st" + std::to_string(s.stages) + "_sk" + std::to_string(s.split_k);
}
std::string stage2_name(const StageParams& s) {
  return s.engine == Engine::Wgmma
             ? "cktune_moe_s2wg_bm" + std::to_string(s.block_m) + "_n" + std::to_string(s.tile_n) + "_st" +
                   std::to_string(s.stages) + (s.staged_store ? "_so" : "") + (s.accumulate ? "_acc" : "") +
                   (s.accumulate && s.col_group > 0 ? "_g" + std::to_string(s.col_group) : "") + (s.dynamic ? "_dyn" : "")
             : "cktune_moe_s2_bm" + std::to_string(s.block_m) + "_n" + std::to_string(s.tile_n) + "_w" +
                   std::to_string(s.warps) + (s.accumulate ? "_acc" : "");
}

const InstanceTable<StageParams, LaunchFn, kStage1.size()>& table1() {
  static const InstanceTable<StageParams, LaunchFn, kStage1.size()> t(kStage1, stage1_name);
  return t;
}
const InstanceTable<StageParams, LaunchFn, kStage2.size()>& table2() {
  static const InstanceTable<StageParams, LaunchFn, kStage2.size()> t(kStage2, stage2_name);
  return t;
}

}  // namespace

std::span<const StageParams> stage_instances(Stage stage) {
  return stage == Stage::One ? table1().rows() : table2().rows();
}

const char* why_not(const StageParams& p, int tokens, int model_dim, int inter_dim, int experts, int topk, int sm) {
#if !defined(CKTUNE_CUDA)
  (void)p, (void)tokens, (void)model_dim, (void)inter_dim, (void)experts, (void)topk, (void)sm;
  return "the MoE stage kernels have no AMD (MFMA) implementation yet";
#else
  if (tokens < 1 || experts < 1 || topk < 1 || topk > experts) return "bad routing sizes";
  if (tokens >= (1 << 24) || topk >= 256) return "tokens >= 2^24 or topk >= 256 do not fit the sorted-id packing";
  if (model_dim % 128 != 0 || inter_dim % 128 != 0) return "model_dim and inter_dim must be multiples of 128";
  if (sm < 89) return "needs the fp8 warp MMA (sm_89 or newer)";
  // Both engines' stage 2 take a tile's whole K = inter_dim at once: the warp MMA keeps it in shared
  // memory, the wgmma stage keeps its first two k-blocks in flight and its scales in registers.
  if (p.stage == Stage::Two && (inter_dim / 128 < 2 || inter_dim / 128 > 4))
    return "stage 2 takes K = inter_dim whole: 256..512 only";
  // Whole tiles and K slices, both engines.
  if (p.stage == Stage::One && inter_dim % (p.tile_n / 2) != 0)
    return "inter_dim is not a multiple of the tile's gate rows";
  if (p.stage == Stage::Two && model_dim % p.tile_n != 0) return "model_dim is not a multiple of the tile";
  if (p.split_k > model_dim / 128) return "more K slices than 128-K blocks";
  if (p.route && !route_fits(tokens, topk, experts))
    return "routes its first tile itself at up to 512 routed pairs and 1024 experts only";
  if (p.engine == Engine::Wgmma) {
    if (sm != 90) return "needs Hopper's wgmma and TMA (sm_90a)";
    if (static_cast<long long>(experts) * 2 * inter_dim >= (1ll << 31) || static_cast<long long>(experts) * model_dim >= (1ll << 31))
      return "expert weight rows exceed the tensor map's 32-bit coordinates";
    return nullptr;
  }
  if (p.stage == Stage::One && p.split_k > 1 && sm < 90)
    return "split-K reduces through a thread-block cluster (sm_90 or newer)";
  if (p.stage == Stage::Two && p.accumulate && sm < 90)
    return "adding into the output uses 16-byte bf16 atomic adds (sm_90 or newer)";
  return nullptr;
#endif
}

bool overlap_launches(int tokens, int topk) { return static_cast<long long>(tokens) * topk <= 16384; }

gpu::ErrorCode launch(const StageParams& p, const Args& a, gpu::Stream stream) {
  if (p.stage == Stage::One) return table1().launch[static_cast<size_t>(p.id)](p, a, stream);
  return table2().launch[static_cast<size_t>(p.id)](p, a, stream);
}

gpu::ErrorCode quantize_stage1(const Args& a, gpu::Stream stream) {
  const size_t warps = static_cast<size_t>(a.tokens) * a.topk * (a.inter_dim / 128);
  const unsigned blocks = static_cast<unsigned>(std::min<size_t>((warps * 32 + 255) / 256, 132 * 32));
  return gpu::launch(detail::quantize_a_kernel, dim3(std::max(1u, blocks)), dim3(256), 0, stream,
                     launch_opts(a.tokens, a.topk),
                     static_cast<const uint16_t*>(a.a), a.aq, a.a_scale, a.tokens * a.topk, a.inter_dim);
}

gpu::ErrorCode reduce_slots(const uint16_t* y_slots, uint16_t* out, int tokens, int topk, int model_dim,
                            gpu::Stream stream) {
  const size_t threads = static_cast<size_t>(tokens) * (model_dim / 8);  // model_dim is a multiple of 128
  const unsigned blocks = static_cast<unsigned>(std::min<size_t>((threads + 255) / 256, 132 * 32));
  return gpu::launch(detail::reduce_slots_kernel, dim3(std::max(1u, blocks)), dim3(256), 0, stream,
                     launch_opts(tokens, topk), y_slots, out, tokens, topk, model_dim);
}

DefaultPick default_pick(int tokens, int model_dim, int inter_dim, int experts, int topk, int cu_num, int sm) {
  // block_m: the candidate (32, 64, 128) whose stage-1 grid wastes the least of the last wave, as
  // AITER's untuned heuristic does; then the plain (unsplit) 128-row kernels of that block size.
  int best_bm = 32;
  long best_rounds = -1, best_empty = 0;
  for (int bm : {32, 64, 128}) {
    const long rows = static_cast<long>(tokens) * topk + static_cast<long>(experts) * bm - topk;
    const long tiles = (inter_dim / 64) * ((rows + bm - 1) / bm);
    const long rounds = (tiles + cu_num - 1) / cu_num, empty = cu_num - tiles % cu_num;
    if (best_rounds < 0 || rounds < best_rounds || (rounds == best_rounds && empty < best_empty))
      best_bm = bm, best_rounds = rounds, best_empty = empty;
  }
  DefaultPick d{best_bm, -1, -1};
  for (const auto& s : stage_instances(Stage::One))
    if (s.block_m == best_bm && s.tile_n == 128 && s.split_k == 1 && s.engine == Engine::WarpMma &&
        !why_not(s, tokens, model_dim, inter_dim, experts, topk, sm))
      d.stage1 = s.id;
  for (const auto& s : stage_instances(Stage::Two))
    if (s.block_m == best_bm && s.tile_n == 128 && d.stage2 < 0 && s.engine == Engine::WarpMma &&
        !why_not(s, tokens, model_dim, inter_dim, experts, topk, sm))
      d.stage2 = s.id;
  return d;
}

}  // namespace cktune::kernels::moe_2stages
