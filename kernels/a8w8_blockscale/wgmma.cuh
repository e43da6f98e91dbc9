#pragma once
// Prefill kernel for FP8 block-scaled GEMM on Hopper: TMA loads into 128-byte-swizzled shared
// memory, one producer warp feeding kStages stages through mbarriers, and BM/64 consumer
// warpgroups each issuing wgmma m64nBNk32 on its 64 rows of X.
//
// Scales: each 128-K block (= one stage) is accumulated by four wgmma into a fresh fp32 register
// tile, which is then promoted into the running fp32 accumulator multiplied by
// x_scale[row, kb] * w_scale[n/128, kb] on the CUDA cores. BN divides 128 and tiles are
// aligned, so one weight scale covers a whole CTA tile.
//
// NVIDIA sm_90a only (wgmma, TMA, mbarrier); the AMD build gets its own prefill path (MFMA) behind
// the same Variant in a later issue.
#include <cstdint>

#include "../common/arch_sm90.hpp"
#include "../common/memory.hpp"
#include "../common/numeric.hpp"
#include "../common/wgmma_block.hpp"
#include "a8w8_blockscale.hpp"
#include "splitk.cuh"
#include "tail_plan.hpp"

#if defined(CKTUNE_CUDA)
#include "../common/tma_map.hpp"
#endif

namespace cktune::kernels::a8w8_blockscale::detail {

// DB: two partial tiles that take turns (block i+1's wgmma overlap block i's promotion, one block always in
// flight) instead of waiting for each block's wgmma before promoting it.
// SC: Block128 promotes each 128-K block with its two block scales; the per-token modes promote it
// unscaled and multiply the finished tile once by x_scale[m] * w_scale[n] (a8w8). PerTokenPreshuffledW
// reads W in AITER's preshuffled layout through a 3-D TMA map that un-shuffles it into wgmma's
// no-swizzle K-major layout (tma::make_preshuffled_map), so the weights' bytes move exactly as before.
// Row pitch (floats) of a parked split-K partial: 8 floats of padding spread a warp's eight rows over
// the banks.
template <int BN>
constexpr int kRedPitch = BN + 8;
// Split-K in the grid kernel: the receive area a CTA of a 1 x 1 x S cluster needs for the other S - 1 CTAs' parts of
// the BM / S rows it owns (fp32), after a 16-byte slot for its receive mbarrier; 0 without a split.
__host__ __device__ constexpr int split_recv_bytes(int bm, int bn, int s) {
  return s > 1 ? 16 + (s - 1) * (bm / s) * bn * 4 : 0;
}

// The persistent kernel's shared memory for a BM x BN tile and ST stages: the stages (1024-byte aligned for the
// swizzle), its output boxes, 2 * ST mbarriers, the split tail's two words, slack; and with block scales by TMA
// (WgCfg::kTmaScalesP) a scale slot a stage, where one fits.
constexpr int persistent_smem_bytes(int bm, int bn, int st) {
  return st * (bm + bn) * 128 + bm * bn * 2 + 2 * st * 8 + 16 + 1024;
}
constexpr int persistent_scale_slot_bytes(int bm) { return bm * 16 + 128; }
constexpr bool persistent_tma_scales(int bm, int bn, int st) {
  return persistent_smem_bytes(bm, bn, st) + st * persistent_scale_slot_bytes(bm) <= 227 * 1024;
}

// KG: consumer warpgroups per 64 rows. KG > 1 gives each 64-row band KG warpgroups that take the
// k-blocks in turn (k-block i goes to k-group i % KG), each with its own accumulator, summed once before
// the epilogue: KG chains of dependent wgmma in flight instead of one, for tiles whose single warpgroup
// cannot keep up with the loads (medium M, where a CTA has one 64-row band).
// FA (per-token only): fast accumulation, each k-block's wgmma add straight into the running accumulator, one
// k-block in flight while the next is issued, no partial tile and no promotion (the tensor cores' own
// accumulation over the whole K, as vLLM's CUTLASS fp8 kernels and cuBLASLt's fast-accumulation mode run it).
// MC (persistent kernel only): clusters of two CTAs that share one operand's k-block, each loading half of it by
// TMA multicast into both: 1 = the two CTAs take neighbouring M tiles and share W, 2 = neighbouring N tiles that
// share X. A stage is refilled once the consumers of both CTAs have released it.
// TAIL (persistent kernel only, no multicast): the tiles past the last whole wave are split along K over the CTAs
// that would otherwise idle (tail_plan), each piece's fp32 partial parked in the workspace and summed in a fixed
// order by the warpgroup that finishes last.
// MINB (grid kernel only): CTAs an SM the kernel is compiled for (__launch_bounds__'s second argument). With 1, ptxas
// may give a thread up to 255 registers and one CTA fills an SM's registers; with 2, two small-stage CTAs share an SM,
// so that a split-K launch's 1 x 1 x S clusters are resident at once where one CTA an SM holds too few of them.
template <int BM, int BN, int STAGES, bool DB = false, Scaling SC = Scaling::Block128, int KG = 1, bool FA = false,
          int MC = 0, bool TAIL = false, int MINB = 1>
struct WgCfg {
  static constexpr int kBM = BM, kBN = BN, kStages = STAGES, kKGroups = KG, kMinBlocks = MINB;
  static_assert(MINB == 1 || (MINB == 2 && MC == 0 && !TAIL), "two CTAs an SM: grid kernel only");
  static constexpr bool kDoubleBuffer = DB;
  static constexpr bool kFastAccum = FA;
  static constexpr bool kBlockScales = SC == Scaling::Block128;
  static constexpr bool kPreshuffledW = SC == Scaling::PerTokenPreshuffledW;
  static constexpr int kMulticast = MC;
  static constexpr bool kTailSplit = TAIL;
  static_assert(!TAIL || MC == 0, "the split tail walks single tiles");
  static constexpr int kClusterSize = MC == 0 ? 1 : 2;
  static_assert(!is_int8(SC), "the wgmma kernels are fp8 only");
  static_assert(MC == 0 || MC == 1 || MC == 2, "no cluster, pairs along M (W shared) or along N (X shared)");
  static_assert(MC == 0 || (!kPreshuffledW && KG == 1), "multicast: row-major operands, one k-group");
  static_assert(MC != 1 || (BN / 2) % 8 == 0, "each CTA's half of W keeps whole 1024-byte swizzle atoms");
  static constexpr int kRowGroups = BM / 64;                 // 64-row bands
  static constexpr int kConsumers = kRowGroups * KG;         // consumer warpgroups
  static constexpr int kWarps = (kConsumers + 1) * 4;        // + one producer warpgroup
  static constexpr int kThreads = kWarps * 32;
  // Register split after setmaxnreg: the producer keeps few, the consumers get the rest, within the registers the CTA
  // got at launch (gpu::sm90::register_split_fits).
  static constexpr int kProducerRegs = 40;
  // Two CTAs an SM: what the launch gives a thread (launch_regs) plus the producer's hand-back, shared by the consumers.
  static constexpr int kConsumerRegs =
      MINB == 2 ? ((gpu::sm90::launch_regs(kThreads, 2) * (kConsumers + 1) - kProducerRegs) / kConsumers) & ~7
      : KG == 1 ? (BM == 128 ? 232 : 240)
      : kConsumers == 2 ? 232
                        : 104;
  static_assert(gpu::sm90::register_split_fits(kThreads, MINB, kProducerRegs, kConsumers, kConsumerRegs),
                "register split exceeds the CTA's registers at launch");
  static_assert(KG == 1 || KG == 2 || KG == 4, "one, two or four k-groups");
  static_assert(kConsumers <= 4, "at most four consumer warpgroups (named barriers 2..5, registers)");
  static_assert(KG == 1 || !DB, "k-groups take the place of paired k-blocks");
  static_assert(!FA || (SC != Scaling::Block128 && !DB && KG == 1),
                "fast accumulation: per-token scales only, one accumulator a warpgroup");
  static constexpr int kABytes = BM * 128;
  static constexpr int kBBytes = BN * 128;
  static constexpr int kStageBytes = kABytes + kBBytes;
  // Grid kernel, block scales, one k-block at a time (neither DB nor FA): each stage has a side area with its k-block's
  // scales, BM rows of x_scale and the tile's w_scale, which a producer warp copies there (cp.async, arriving on the
  // stage's full barrier) so that the consumers read them from shared memory. Scales loaded from global memory by the
  // consumers held their wgmma: the rows ran 7-16% faster with no scale loads at all (docs/perf.md, 2026-12-01 08:40).
  static constexpr bool kStagedScales = kBlockScales && !DB && !FA;
  static constexpr int kSideFloats = kStagedScales ? (BM + 4) : 0;  // BM x scales, the w scale, padding to 16 bytes
  static constexpr int kSideBytes = kSideFloats * 4;
  // Epilogue staging: bf16 tile with 16 bytes of padding per row (bank spread).
  static constexpr int kEpiPitch = BN * 2 + 16;
  static constexpr int kEpiBytes = BM * kEpiPitch;
  // Stages first (1024-byte aligned for the swizzle), epilogue tile, 2*STAGES mbarriers, slack.
  static constexpr int kSmemBytes = STAGES * kStageBytes + kEpiBytes + STAGES * kSideBytes + 2 * STAGES * 8 + 1024;
  // The persistent kernel stages its output in unpadded 128-byte-swizzled boxes for TMA stores: BM x BN bf16,
  // which leaves room for a sixth 128 x 128 stage.
  static constexpr int kEpiBytesP = BM * BN * 2;
  // (+16: two words where a warpgroup of the split tail learns whether it finishes its tile.)
  static constexpr int kSmemBytesP = persistent_smem_bytes(BM, BN, STAGES);
  // Persistent kernel, block scales by TMA (kTmaScalesP, where a slot a stage fits: not 128 x 128 x 6): the stage of
  // each group of 4 k-blocks' first block (or of a range's first) also lands, on its full barrier, a box of those 4
  // k-blocks x BM rows of x_scale [M, KB] (16 bytes a row, the narrowest box TMA takes; TMA reads boxes from 16-byte
  // aligned addresses only, so a box starts at a multiple of 4 k-blocks) and one of 4 of w_scale [N / 128, KB] at
  // +BM * 16; the consumers read each row's 4 with one 16-byte load there and keep them for the group. The maps need
  // KB % 4 == 0 (a 16-byte row pitch); otherwise the same tile runs as an instance of the kernel without them
  // (launch_wgmma_persistent). docs/perf.md, 2026-12-02: a box a k-block, or the scales copied by a producer warp,
  // lost on the paired rows; a box a group gains 2-4% on the large shapes' winners.
  static constexpr int kScaleSlotBytes = persistent_scale_slot_bytes(BM);
  static constexpr int kScaleBoxBytes = BM * 16 + 16;
  static constexpr bool kTmaScalesP = kBlockScales && !FA && persistent_tma_scales(BM, BN, STAGES);
  static constexpr int kSmemBytesPS = kSmemBytesP + (kTmaScalesP ? STAGES * kScaleSlotBytes : 0);
  // Block scales: one weight scale per CTA tile, so BN divides 128. Per-token: any BN of 32s up to 192 (the
  // grid kernel's epilogue stores 16-byte pieces; the persistent one's TMA boxes need BN % 64 == 0).
  static_assert(BM % 64 == 0 && BN % 32 == 0 && BN <= 192 && (SC != Scaling::Block128 || 128 % BN == 0),
                "tile shape");
  static_assert(kStageBytes % 1024 == 0, "stage must keep 1024-byte alignment");
  static_assert(kSmemBytesP <= 227 * 1024 && kSmemBytesPS <= 227 * 1024, "shared memory per CTA exceeds the sm_90 limit");
  static_assert(BM * kRedPitch<BN> * 4 <= STAGES * kStageBytes, "the parked split-K partial must fit the stages");
  static_assert((KG - 1) * BM * kRedPitch<BN> * 4 <= STAGES * kStageBytes, "the parked k-group tiles must fit the stages");
  // Named barrier of the k-groups' sum (0 is __syncthreads, 1 the split-K park, 2..5 the epilogues).
  static constexpr int kKSumBarrier = 6;
};

struct WgArgs {
  const float* x_scale;
  const float* w_scale;
  uint16_t* y;
  int M, N, K, KB, S;  // S > 1: split-K, the S CTAs of a tile launched as one 1 x 1 x S cluster
  // Persistent kernel with the split tail (tail_plan): the last tail_tiles tiles in tail_split pieces along K; each
  // piece's warpgroup parks its fp32 64 x BN partial in `partials` and counts itself in `counters` (two a tile).
  int tail_tiles = 0, tail_split = 1;
  float* partials = nullptr;
  int* counters = nullptr;
  // Rows of x's TMA box for the last M tile (tmap_xt, x_tail_rows()); the other tiles' boxes have the tile's rows.
  int x_tail_rows = 0;
};

#if defined(CKTUNE_CUDA)
// Per-token modes read their scales only in the epilogue (x_scale rows m0.., w_scale columns n0..); one warp
// of the producer warpgroup asks for those slices in L2 at the start, so that with cold inputs the epilogue
// does not wait for DRAM (docs/perf.md, 2026-11-25).
__device__ __forceinline__ void prefetch_outer_scales(const WgArgs& a, int m0, int bm, int n0, int bn, int lane) {
  gpu::prefetch_floats_l2(a.x_scale + m0, min(bm, a.M - m0), lane);
  gpu::prefetch_floats_l2(a.w_scale + n0, min(bn, a.N - n0), lane);
}

// The scales of a 128-K block for a thread's two rows (RowScales below).
struct Scales {
  float s0, s1;
};

// A consumer warpgroup's side of the stage ring, the same in both kernels: stage sequence number g
// (running across k-blocks, and across tiles in the persistent kernel) holds one 128-K block of X and W.
template <class C>
struct ConsumerRing {
  // The ring's and its barriers' shared-memory addresses, converted once: converting the generic pointers again every
  // k-block cost the MoE stages' consumers a read of the CTA's cluster id and its wait (docs/perf.md, 2026-11-29 18:29).
  uint32_t smem_at, full_at, empty_at;
  int wg, lane;  // wg: the warpgroup's 64-row band
  uint32_t peer_empty = 0;  // multicast (C::kMulticast): the other CTA's empty[0] as a shared::cluster address
  __device__ __forceinline__ ConsumerRing(uint8_t* smem, uint64_t* full, uint64_t* empty, int wg_, int lane_,
                                          uint32_t peer_empty_ = 0)
      : smem_at(cktune::gpu::sm90::smem_u32(smem)),
        full_at(cktune::gpu::sm90::smem_u32(full)),
        empty_at(cktune::gpu::sm90::smem_u32(empty)),
        wg(wg_),
        lane(lane_),
        peer_empty(peer_empty_) {}
  // Stage g is read: one arrival a warp on this CTA's empty barrier and, with multicast, on the other CTA's (its
  // producer writes this CTA's stages too).
  __device__ __forceinline__ void release(int g) const {
    using namespace cktune::gpu::sm90;
    if (lane != 0) return;
    const int s = g % C::kStages;
    mbar_arrive_at(empty_at + 8 * s);
    if constexpr (C::kMulticast != 0) mbar_arrive_cluster(peer_empty + s * 8);
  }
  // Wait for stage g's tiles and issue its four 32-K wgmma into t (fresh: the first one overwrites).
  __device__ __forceinline__ void issue(int g, float (&t)[C::kBN / 2], int acc_in = 0) const {
    using namespace cktune::gpu::sm90;
    const int s = g % C::kStages;
    mbar_wait_at(full_at + 8 * s, (g / C::kStages) & 1);
    const uint32_t a = smem_at + s * C::kStageBytes + wg * 64 * 128;
    const uint32_t b = smem_at + s * C::kStageBytes + C::kABytes;
    if constexpr (C::kPreshuffledW) {
      // B as [8 K chunks][BN rows][16 bytes]: chunks BN*16 bytes apart, 8-row groups 128; a 32-K step is
      // two chunks.
      wgmma_block_k128_desc<C::kBN>(t, smem_desc_sw128(a), smem_desc_interleave(b, C::kBN * 16, 128), 2,
                                    2 * C::kBN, acc_in);
    } else {
      wgmma_block_k128<C::kBN>(t, a, b, acc_in);
    }
  }
  // Fast accumulation: k-blocks 0 .. n-1 (stages g0 ..) into acc, the first overwriting it; block i+1 is issued
  // before block i is waited for, and each stage goes back as soon as its wgmma are done.
  __device__ __forceinline__ void accumulate(int g0, int n, float (&acc)[C::kBN / 2]) const {
    using namespace cktune::gpu::sm90;
    for (int i = 0; i < n; ++i) {
      issue(g0 + i, acc, i > 0 ? 1 : 0);
      if (i > 0) {
        wgmma_wait<1>();
        release(g0 + i - 1);
      }
    }
    wgmma_wait<0>();
    release(g0 + n - 1);
    fence_operands(acc);
  }
  // DB: k-blocks 0 .. n-1 (stages g0 ..) promoted into acc through two partial tiles that take turns
  // (wgmma_in_turns); scales(i) gives block i's row scales, loaded before its wgmma are waited for.
  // InStage: the scales come with the stage (read after its wait), else from global memory (loaded before it).
  template <bool InStage = false, class ScalesAt>
  __device__ __forceinline__ void promote_in_turns(int g0, int n, float (&acc)[C::kBN / 2], float (&ta)[C::kBN / 2],
                                                   float (&tb)[C::kBN / 2], ScalesAt scales) const {
    Scales sc[2];
    cktune::gpu::sm90::wgmma_in_turns(
        n, ta, tb,
        [&](int i, float(&t)[C::kBN / 2], int slot) {
          if constexpr (InStage) {
            issue(g0 + i, t);
            sc[slot] = scales(i);
          } else {
            sc[slot] = scales(i);
            issue(g0 + i, t);
          }
        },
        [&](int i, float(&t)[C::kBN / 2], int slot) { retire(g0 + i, acc, t, sc[slot].s0, sc[slot].s1); });
  }
  // Stage g's wgmma are complete: free the stage, add t scaled by the block's scales into acc.
  __device__ __forceinline__ void retire(int g, float (&acc)[C::kBN / 2], float (&t)[C::kBN / 2], float s0,
                                         float s1) const {
    using namespace cktune::gpu::sm90;
    fence_operands(t);
    release(g);
    promote_rows(acc, t, s0, s1);
  }
};

// The producer's weight load of 128-K block kb for the tile at row n0 (row-major: a 2-D box; preshuffled:
// the 3-D box of make_preshuffled_map, 8 chunks of 16 K from chunk kb * 8).
template <class C>
__device__ __forceinline__ void load_w(uint32_t dst, const CUtensorMap* tmap_w, uint64_t* bar, int kb, int n0) {
  using namespace cktune::gpu::sm90;
  if constexpr (C::kPreshuffledW) tma_load_3d(dst, tmap_w, bar, 0, n0 / 16, kb * 8);
  else tma_load_2d(dst, tmap_w, bar, kb * 128, n0);
}

// The scales of 128-K block i for the thread's two rows: x_scale[row, i] * w_scale[tile, i], 0 for a
// row past M. Loaded before the block's wgmma are waited for, so the loads are off the critical path.
// Per-token mode (Block = false): every block is promoted unscaled.
template <bool Block>
struct RowScales {
  const float *xs0, *xs1, *ws;
  bool ok0, ok1;
  __device__ __forceinline__ Scales at(int i) const {
    if constexpr (!Block) return Scales{1.f, 1.f};
    const float w = __ldg(ws + i);
    return Scales{(ok0 ? __ldg(xs0 + i) : 0.f) * w, (ok1 ? __ldg(xs1 + i) : 0.f) * w};
  }
};

// Per-token mode: multiply a consumer's finished tile (rows row0 and row0 + 8, columns cb + 8j and
// cb + 8j + 1) by x_scale[m] * w_scale[n]; cells past M or N become 0 and are never stored.
template <int BN>
__device__ __forceinline__ void scale_outer(float (&acc)[BN / 2], const float* x_scale, const float* w_scale, int row0,
                                            int cb, int M, int N) {
  const float x0 = row0 < M ? __ldg(x_scale + row0) : 0.f;
  const float x1 = row0 + 8 < M ? __ldg(x_scale + row0 + 8) : 0.f;
#pragma unroll
  for (int j = 0; j < BN / 8; ++j)
#pragma unroll
    for (int c = 0; c < 2; ++c) {
      const int n = cb + j * 8 + c;
      const float w = n < N ? __ldg(w_scale + n) : 0.f;
      acc[j * 4 + c] *= x0 * w;
      acc[j * 4 + 2 + c] *= x1 * w;
    }
}

// A consumer thread's part of its warpgroup's fp32 tile (rows lr0 and lr0 + 8 of the tile, columns
// 8j + 2(lane & 3) and the next) stored into / added from a parked tile in shared memory, rows P floats
// apart: the split-K reduction and the k-groups' sum park tiles the same way.
template <int BN, int P>
__device__ __forceinline__ void park_rows(float* dst, const float (&acc)[BN / 2], int lr0, int lane) {
#pragma unroll
  for (int j = 0; j < BN / 8; ++j) {
    const int c = j * 8 + (lane & 3) * 2;
    *reinterpret_cast<float2*>(dst + lr0 * P + c) = make_float2(acc[j * 4 + 0], acc[j * 4 + 1]);
    *reinterpret_cast<float2*>(dst + (lr0 + 8) * P + c) = make_float2(acc[j * 4 + 2], acc[j * 4 + 3]);
  }
}
template <int BN, int P>
__device__ __forceinline__ void add_parked_rows(float (&acc)[BN / 2], const float* src, int lr0, int lane) {
#pragma unroll
  for (int j = 0; j < BN / 8; ++j) {
    const int c = j * 8 + (lane & 3) * 2;
    const float2 u = *reinterpret_cast<const float2*>(src + lr0 * P + c);
    const float2 v = *reinterpret_cast<const float2*>(src + (lr0 + 8) * P + c);
    acc[j * 4 + 0] += u.x, acc[j * 4 + 1] += u.y, acc[j * 4 + 2] += v.x, acc[j * 4 + 3] += v.y;
  }
}

// The stage ring every wgmma GEMM kernel runs: `full[s]` takes the producer's expect_tx arrival (and the
// bytes; full_arrivals - 1 more where producer threads also fill a side area by cp.async), `empty[s]` one arrival a
// consumer warp that reads the stage. One thread initialises; the caller
// syncs the CTA afterwards.
__device__ __forceinline__ void init_ring(uint64_t* full, uint64_t* empty, int stages, int consumer_warps,
                                          int full_arrivals = 1) {
  using namespace cktune::gpu::sm90;
  for (int s = 0; s < stages; ++s) {
    mbar_init(&full[s], full_arrivals);
    mbar_init(&empty[s], consumer_warps);
  }
  fence_barrier_init();
}

// Where a tile's x comes from: the last M tile (of tiles of kTile rows) loads through tmap_xt, whose box has only the
// x_tail_rows it holds, and its stages expect that many fewer bytes; the others through tmap_x (cut = false: always).
struct XSource {
  const CUtensorMap* map;
  uint32_t stage_tx;
};
template <int kTile, int kStageBytes>
__device__ __forceinline__ XSource x_source(const CUtensorMap* tmap_x, const CUtensorMap* tmap_xt, int m0,
                                            const WgArgs& a, bool cut = true) {
  const bool last = cut && m0 + kTile > a.M;
  return {last ? tmap_xt : tmap_x, static_cast<uint32_t>(kStageBytes - (last ? (kTile - a.x_tail_rows) * 128 : 0))};
}

// The producer thread's loop over a CTA's nkb k-blocks: k-block i goes to stage i % ST once the consumers
// freed it, and load(stage address, full barrier, i) issues its TMA loads (tx bytes in all, at most kStageBytes).
template <int ST, int kStageBytes, class Load>
__device__ __forceinline__ void produce_stages(uint8_t* smem, uint64_t* full, uint64_t* empty, int nkb, uint32_t tx,
                                               Load&& load) {
  using namespace cktune::gpu::sm90;
  for (int i = 0; i < nkb; ++i) {
    const int s = i % ST;
    if (i >= ST) mbar_wait(&empty[s], ((i / ST) + 1) & 1);
    mbar_expect_tx(&full[s], tx);
    load(smem_u32(smem + s * kStageBytes), &full[s], i);
  }
}

// Staged bf16 output rows to Y in 16-byte pieces: rows r = 0..rows-1 of the staging area (pitch bytes apart)
// are Y's rows m0 + r from column n0, kChunks pieces a row; threads idx, idx + nthreads, ... take the pieces.
// Rows past M and columns past N are dropped (a ragged N is stored element by element).
template <int kChunks>
__device__ __forceinline__ void store_staged_rows(const uint8_t* stage, int pitch, int rows, int idx, int nthreads, int m0,
                                                  int n0, int M, int N, uint16_t* y) {
  const bool vec_ok = (N % 8) == 0;
  for (int e = idx; e < rows * kChunks; e += nthreads) {
    const int r = e / kChunks, ch = e % kChunks;
    const int m = m0 + r, n = n0 + ch * 8;
    if (m >= M || n >= N) continue;
    const uint8_t* src = stage + r * pitch + ch * 16;
    uint16_t* dst = y + static_cast<size_t>(m) * N + n;
    if (vec_ok) {
      *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
    } else {
      const uint16_t* s16 = reinterpret_cast<const uint16_t*>(src);
      for (int q = 0; q < 8 && n + q < N; ++q) dst[q] = s16[q];
    }
  }
}

template <class C>
__global__ void __launch_bounds__(C::kThreads, C::kMinBlocks)
    wgmma_kernel(const __grid_constant__ CUtensorMap tmap_x, const __grid_constant__ CUtensorMap tmap_xt,
                 const __grid_constant__ CUtensorMap tmap_w, const WgArgs a) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 900) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace cktune::gpu::sm90;
  constexpr int BM = C::kBM, BN = C::kBN, ST = C::kStages;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = align_smem<1024>(smem_raw);
  uint8_t* epi = smem + ST * C::kStageBytes;
  float* side = reinterpret_cast<float*>(epi + C::kEpiBytes);  // kStagedScales: each stage's scales
  uint64_t* full = reinterpret_cast<uint64_t*>(epi + C::kEpiBytes + ST * C::kSideBytes);
  uint64_t* empty = full + ST;
  // Split-K: this CTA's receive mbarrier and area (split_recv_bytes; the launch adds them to the shared memory).
  uint64_t* recv_bar = empty + ST;
  float* recv = reinterpret_cast<float*>(recv_bar + 2);

  const int tid = threadIdx.x;
  const int wg = warp_uniform(tid / 128);  // warpgroup; the last one is the producer
  const int m0 = blockIdx.y * BM;
  const int n0 = blockIdx.x * BN;
  const int KB = a.KB;
  const int z = blockIdx.z;
  const int kb_begin = (z * KB) / a.S;
  const int nkb = ((z + 1) * KB) / a.S - kb_begin;

  if (tid == 0) {
    if (a.S > 1) mbar_init(recv_bar, 1);            // one arrival: the owner's expect_tx
    // One arrival per warp of the stage's k-group; full: the TMA producer, and the scale warp's 32 threads.
    init_ring(full, empty, ST, C::kRowGroups * 4, C::kStagedScales ? 33 : 1);
  }
  __syncthreads();
  // Split-K: the cluster barrier that publishes every CTA's receive mbarrier, arrived at now and waited for just
  // before the first push (or the exit), so that nothing waits for it on the way in.
  if (a.S > 1) cluster_arrive_relaxed();

  if (wg == C::kConsumers) {
    // Producer warpgroup: gives registers back to the consumers; one thread streams the stages.
    setmaxnreg_dec<C::kProducerRegs>();
    if (tid == C::kConsumers * 128) {
      const XSource xs = x_source<BM, C::kStageBytes>(&tmap_x, &tmap_xt, m0, a);
      tma_prefetch_desc(xs.map);
      tma_prefetch_desc(&tmap_w);
      produce_stages<ST, C::kStageBytes>(smem, full, empty, nkb, xs.stage_tx, [&](uint32_t st, uint64_t* bar, int i) {
        tma_load_2d(st, xs.map, bar, (kb_begin + i) * 128, m0);
        load_w<C>(st + C::kABytes, &tmap_w, bar, kb_begin + i, n0);
      });
    }
    if constexpr (!C::kBlockScales)
      if (tid / 32 == C::kConsumers * 4 + 1) prefetch_outer_scales(a, m0, BM, n0, BN, tid & 31);
    if constexpr (C::kStagedScales)
      if (tid / 32 == C::kConsumers * 4 + 1) {
        // The scale warp: k-block i's scales into stage i's side area once the consumers freed the stage (rows past
        // M as zeros), each thread's copies completing as one arrival on the stage's full barrier.
        const int lane = tid & 31;
        const float* ws = a.w_scale + static_cast<size_t>(n0 / 128) * KB + kb_begin;
        for (int i = 0; i < nkb; ++i) {
          const int s = i % ST;
          if (i >= ST) mbar_wait(&empty[s], ((i / ST) + 1) & 1);
          const uint32_t dst = smem_u32(side + s * C::kSideFloats);
#pragma unroll
          for (int r = lane; r < BM; r += 32) {
            const bool ok = m0 + r < a.M;
            cp_async_4(dst + 4 * r, a.x_scale + static_cast<size_t>(ok ? m0 + r : 0) * KB + kb_begin + i, ok ? 4 : 0);
          }
          if (lane == 0) cp_async_4(dst + 4 * BM, ws + i, 4);
          cp_async_mbar_arrive_noinc(&full[s]);
        }
      }
    // Split-K: every thread of the cluster's CTAs completes the cluster barrier arrived at above.
    if (a.S > 1) cluster_wait();
    return;
  }
  setmaxnreg_inc<C::kConsumerRegs>();

  // Consumers: warpgroup wg works on the 64-row band rg of the tile and on the k-blocks kg, kg + KG, ...
  const int rg = wg % C::kRowGroups, kg = wg / C::kRowGroups;
  const int lane = tid & 31;
  const int wid = (tid % 128) / 32;
  const int lr0 = rg * 64 + wid * 16 + (lane >> 2);  // this thread's rows in the tile: lr0, lr0 + 8
  const int row0 = m0 + lr0;
  const int row1 = row0 + 8;
  const bool ok0 = row0 < a.M, ok1 = row1 < a.M;
  const float* xs0p = a.x_scale + static_cast<size_t>(ok0 ? row0 : 0) * KB + kb_begin;
  const float* xs1p = a.x_scale + static_cast<size_t>(ok1 ? row1 : 0) * KB + kb_begin;
  const float* wsp = a.w_scale + static_cast<size_t>(n0 / 128) * KB + kb_begin;

  float acc[BN / 2];
  float ta[BN / 2];
  float tb[C::kDoubleBuffer ? BN / 2 : 1];
#pragma unroll
  for (int i = 0; i < BN / 2; ++i) acc[i] = 0.f;

  const ConsumerRing<C> ring{smem, full, empty, rg, lane};
  const RowScales<C::kBlockScales> rs{xs0p, xs1p, wsp, ok0, ok1};
  auto issue = [&](int i, float(&t)[BN / 2]) { ring.issue(i, t); };
  auto scales = [&](int i) { return rs.at(i); };
  auto promote = [&](int i, Scales sc, float(&t)[BN / 2]) { ring.retire(i, acc, t, sc.s0, sc.s1); };

  // DB: two partial tiles that take turns, block i+1's wgmma run on the tensor cores while block i is promoted on
  // the CUDA cores (ConsumerRing::promote_in_turns). Otherwise the two consumer warpgroups overlap each other.
  if constexpr (C::kFastAccum) {
    ring.accumulate(0, nkb, acc);
  } else if constexpr (C::kDoubleBuffer) {
    ring.promote_in_turns(0, nkb, acc, ta, tb, scales);
  } else {
    for (int i = kg; i < nkb; i += C::kKGroups) {
      if constexpr (C::kStagedScales) {
        issue(i, ta);  // the stage is full: its side area holds the block's scales
        const uint32_t sd = smem_u32(side + (i % ST) * C::kSideFloats);
        const float w = ld_shared_f32(sd + 4 * BM);
        const Scales sc{ld_shared_f32(sd + 4 * lr0) * w, ld_shared_f32(sd + 4 * (lr0 + 8)) * w};
        wgmma_wait<0>();
        promote(i, sc, ta);
      } else {
        const Scales sc = scales(i);
        issue(i, ta);
        wgmma_wait<0>();
        promote(i, sc, ta);
      }
    }
  }

  if constexpr (C::kKGroups > 1) {
    // Sum the k-groups' accumulators: once every consumer is past its last wgmma the stages are free
    // (the producer has nothing in flight); k-groups 1.. park their tiles there, one plane each, and
    // k-group 0 adds them in that fixed order.
    constexpr int P = kRedPitch<BN>;
    constexpr int kPlane = BM * P;
    float* park = reinterpret_cast<float*>(smem);
    gpu::sm90::named_barrier_sync(C::kKSumBarrier, C::kConsumers * 128);
    if (kg > 0) park_rows<BN, P>(park + (kg - 1) * kPlane, acc, lr0, lane);
    gpu::sm90::named_barrier_sync(C::kKSumBarrier, C::kConsumers * 128);
    if (kg > 0) {
      if (a.S > 1) cluster_wait();
      return;
    }
#pragma unroll
    for (int q = 0; q < C::kKGroups - 1; ++q) add_parked_rows<BN, P>(acc, park + q * kPlane, lr0, lane);
  }

  const int cb = n0 + (lane & 3) * 2;
  if constexpr (!C::kBlockScales) scale_outer<BN>(acc, a.x_scale, a.w_scale, row0, cb, a.M, a.N);
  if (a.S > 1) {
    // Split-K by push (with k-groups only k-group 0 gets here). The tile's rows are owned by the cluster's CTAs in
    // blocks of BM / S (whole 16-row warp blocks: why_not), rank r the r-th. A warp whose 16 rows another CTA owns
    // sends its fp32 part there with st.async (fragment order: the pair of floats i2 of lane l at i2 * 64 + 2 * l of
    // its block), completing on that CTA's receive mbarrier, and is done. A warp whose rows this CTA owns parks its
    // own part in the same order over the stages (free once every consumer has passed barrier 1: the producer has
    // nothing in flight), waits for the other S - 1 parts, and adds the S parts in CTA order q = 0 .. S - 1 into its
    // zeroed accumulator, as the reduction through distributed shared memory did (the same sums term by term), then
    // stores. No barrier across the cluster after the k-loop: that form's two took ~1.25 us and its reads ~1.4 us of
    // the ~2.75 us it spent on a 64 x 64 tile over four CTAs (per-CTA stamps, docs/perf.md 2026-12-01).
    gpu::barrier_sync<1, C::kRowGroups * 128>();
    const int S = a.S, rank = static_cast<int>(cluster_ctarank());
    const int rows = BM / S, wb = rows / 16;         // rows a CTA owns; warp blocks in them
    const int w = lr0 >> 4, owner = w / wb, wl = w - owner * wb;
    constexpr int kBlock = 16 * BN;                  // floats of a warp block
    cluster_wait();                                  // every CTA's receive mbarrier is initialised
    if (owner != rank) {
      const int slot = rank < owner ? rank : rank - 1;  // this CTA's slot in the owner's area
      const uint32_t dst = cluster_map_smem(smem_u32(recv + (slot * wb + wl) * kBlock + 2 * lane), owner);
      const uint32_t bar = cluster_map_smem(smem_u32(recv_bar), owner);
#pragma unroll
      for (int i2 = 0; i2 < BN / 4; ++i2) st_async_f32x2(dst + i2 * 64 * 4, acc[2 * i2], acc[2 * i2 + 1], bar);
      return;
    }
    float* own = reinterpret_cast<float*>(smem) + wl * kBlock + 2 * lane;
#pragma unroll
    for (int i2 = 0; i2 < BN / 4; ++i2)
      *reinterpret_cast<float2*>(own + i2 * 64) = make_float2(acc[2 * i2], acc[2 * i2 + 1]);
    if (wl == 0 && lane == 0) mbar_expect_tx(recv_bar, static_cast<uint32_t>((S - 1) * rows * BN * 4));
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) acc[i] = 0.f;
    mbar_wait(recv_bar, 0);
    for (int q = 0; q < S; ++q) {
      const float* src = q == rank ? own : recv + ((q < rank ? q : q - 1) * wb + wl) * kBlock + 2 * lane;
#pragma unroll
      for (int i2 = 0; i2 < BN / 4; ++i2) {
        const float2 v = *reinterpret_cast<const float2*>(src + i2 * 64);
        acc[2 * i2] += v.x, acc[2 * i2 + 1] += v.y;
      }
    }
    // Rows lr0 and lr0 + 8, columns cb + 8j and cb + 8j + 1 (the fragment's); cells past M or N are dropped.
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int m = row0 + 8 * h;
      if (m >= a.M) continue;
#pragma unroll
      for (int j = 0; j < BN / 8; ++j) {
        const int n = cb + j * 8;
        uint16_t* dst = a.y + static_cast<size_t>(m) * a.N + n;
        const float lo = acc[j * 4 + 2 * h], hi = acc[j * 4 + 2 * h + 1];
        if (n + 1 < a.N && a.N % 2 == 0) {
          *reinterpret_cast<uint32_t*>(dst) = gpu::pack_bf16x2(lo, hi);
        } else {
          if (n < a.N) dst[0] = gpu::f32_to_bf16_bits(lo);
          if (n + 1 < a.N) dst[1] = gpu::f32_to_bf16_bits(hi);
        }
      }
    }
    return;
  }

  // Epilogue: bf16 tile through shared memory (each warpgroup its own 64 rows), then 16-byte
  // coalesced stores; rows/columns past M/N are dropped.
  {
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      const int c = j * 8 + (lane & 3) * 2;
      *reinterpret_cast<uint32_t*>(epi + lr0 * C::kEpiPitch + c * 2) = gpu::pack_bf16x2(acc[j * 4 + 0], acc[j * 4 + 1]);
      *reinterpret_cast<uint32_t*>(epi + (lr0 + 8) * C::kEpiPitch + c * 2) =
          gpu::pack_bf16x2(acc[j * 4 + 2], acc[j * 4 + 3]);
    }
    asm volatile("bar.sync %0, 128;\n" ::"r"(2 + rg));  // this warpgroup only
    store_staged_rows<BN / 8>(epi + rg * 64 * C::kEpiPitch, C::kEpiPitch, 64, tid % 128, 128, m0 + rg * 64, n0, a.M,
                              a.N, a.y);
  }
#endif
}

// Persistent tile order: groups of kGroupM tile rows, N-tiles walked inside a group with the M
// tile fastest, so the CTAs running at one time share a band of X rows and a band of W rows
// (both stay in L2) instead of streaming all of X (or W) once per wave.
constexpr int kGroupM = 8;
__device__ __forceinline__ void tile_origin(int t, int tiles_m, int tiles_n, int bm, int bn, int& m0, int& n0) {
  const int group = kGroupM * tiles_n;
  const int first_m = (t / group) * kGroupM;
  const int gm = min(tiles_m - first_m, kGroupM);
  const int r = t % group;
  m0 = (first_m + r % gm) * bm;
  n0 = (r / gm) * bn;
}

// Persistent variant: gridDim.x CTAs (at most one per SM) walk the output tiles; the producer runs
// ahead into the next tile while the consumers finish the current one, and the epilogue leaves
// through TMA stores from a 128-byte-swizzled staging tile, so neither the pipeline fill nor the
// output write sits between two tiles' tensor-core work. Split-K is not used here.
// Multicast (C::kMulticast): the CTAs come in clusters of two that walk pairs of neighbouring tiles (along M
// sharing W, or along N sharing X) in step; each CTA's producer loads its own operand whole and half of the
// shared one into both CTAs, and every consumer warp releases a stage in both CTAs.
// TS: this instance takes its block scales by TMA (C::kTmaScalesP and maps the launch could make).
template <class C, bool TS>
__global__ void __launch_bounds__(C::kThreads, 1)
    wgmma_persistent_kernel(const __grid_constant__ CUtensorMap tmap_x, const __grid_constant__ CUtensorMap tmap_xt,
                            const __grid_constant__ CUtensorMap tmap_w,
                            const __grid_constant__ CUtensorMap tmap_y, const __grid_constant__ CUtensorMap tmap_xs,
                            const __grid_constant__ CUtensorMap tmap_ws, const WgArgs a) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 900) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace cktune::gpu::sm90;
  constexpr int BM = C::kBM, BN = C::kBN, ST = C::kStages, MC = C::kMulticast;
  constexpr bool kTS = C::kTmaScalesP && TS;
  static_assert(C::kKGroups == 1, "the persistent kernel has one warpgroup per 64-row band");
  static_assert(BN % 64 == 0, "the TMA-store epilogue writes boxes of 64 columns");
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = align_smem<1024>(smem_raw);
  uint8_t* epi = smem + ST * C::kStageBytes;
  // kTS: stage s's scale box at scale_at + s * kScaleSlotBytes (x_scale's), + BM * 16 (w_scale's).
  const uint32_t scale_at = smem_u32(epi + C::kEpiBytesP);
  uint64_t* full = reinterpret_cast<uint64_t*>(epi + C::kEpiBytesP + (kTS ? ST * C::kScaleSlotBytes : 0));
  uint64_t* empty = full + ST;
  int* tail_last = reinterpret_cast<int*>(empty + ST);  // per consumer warpgroup: "this piece finishes its tile"

  const int tid = threadIdx.x;
  const int wg = warp_uniform(tid / 128);
  const int KB = a.KB;
  const int tiles_m = (a.M + BM - 1) / BM;
  const int tiles_n = (a.N + BN - 1) / BN;
  // The units walked: tiles, or with multicast pairs of tiles (the last pair of an odd count has one tile
  // past the matrix: its loads read zeros and its stores write nothing).
  const int rank = MC != 0 ? static_cast<int>(cluster_ctarank()) : 0;
  const int unit0 = MC != 0 ? static_cast<int>(blockIdx.x) / 2 : static_cast<int>(blockIdx.x);
  const int unit_step = MC != 0 ? static_cast<int>(gridDim.x) / 2 : static_cast<int>(gridDim.x);
  const int units_m = MC == 1 ? (tiles_m + 1) / 2 : tiles_m;
  const int units_n = MC == 2 ? (tiles_n + 1) / 2 : tiles_n;
  const int units = units_m * units_n;
  auto origin = [&](int u, int& m0, int& n0) {
    tile_origin(u, units_m, units_n, MC == 1 ? 2 * BM : BM, MC == 2 ? 2 * BN : BN, m0, n0);
    if constexpr (MC == 1) m0 += rank * BM;
    if constexpr (MC == 2) n0 += rank * BN;
  };
  // A CTA's work, the same for its producer and its consumers: whole units (every k-block), then with the split
  // tail one piece of a tile past the last whole wave (k-blocks [kb0, kb1)). f(m0, n0, kb0, kb1, tail, piece):
  // tail = the tile's index among the split ones, -1 for a whole tile.
  const int tail = C::kTailSplit ? a.tail_tiles : 0, split = C::kTailSplit ? a.tail_split : 1;
  const int units_whole = units - tail;
  auto for_each_item = [&](auto&& f) {
    for (int u = unit0; u < units_whole; u += unit_step) {
      int m0, n0;
      origin(u, m0, n0);
      f(m0, n0, 0, KB, -1, 0);
    }
    if constexpr (C::kTailSplit) {
      const int b = static_cast<int>(blockIdx.x);
      if (b < tail * split) {
        const TailPiece tp = tail_piece(TailPlan{tail, split}, b, KB);
        int m0, n0;
        origin(units_whole + tp.tile, m0, n0);
        f(m0, n0, tp.kb0, tp.kb1, tp.tile, tp.piece);
      }
    }
  };

  if (tid == 0) init_ring(full, empty, ST, C::kRowGroups * 4 * C::kClusterSize);
  // With multicast the other CTA's producer writes into this CTA's stages: its barriers must be initialised first.
  if constexpr (MC != 0) cluster_sync_all();
  else __syncthreads();

  if (wg == C::kConsumers) {
    setmaxnreg_dec<C::kProducerRegs>();
    if (tid == C::kConsumers * 128) {
      tma_prefetch_desc(&tmap_x);
      tma_prefetch_desc(&tmap_xt);
      tma_prefetch_desc(&tmap_w);
      if constexpr (kTS) {
        tma_prefetch_desc(&tmap_xs);
        tma_prefetch_desc(&tmap_ws);
      }
      int g = 0;  // stage sequence number, continuous across tiles
      for_each_item([&](int m0, int n0, int kb0, int kb1, int, int) {
        const XSource xs = x_source<BM, C::kStageBytes>(&tmap_x, &tmap_xt, m0, a, MC != 2);  // multicast X: whole boxes
        for (int kb = kb0; kb < kb1; ++kb, ++g) {
          const int s = g % ST;
          if (g >= ST) mbar_wait(&empty[s], ((g / ST) + 1) & 1);
          const uint32_t st = smem_u32(smem + s * C::kStageBytes);
          // kTS: the scales' boxes (a group of 4 k-blocks) with the stage of the group's first block, or the range's.
          const bool box = kTS && ((kb & 3) == 0 || kb == kb0);
          mbar_expect_tx(&full[s], xs.stage_tx + (box ? C::kScaleBoxBytes : 0));
          if (box) {
            // Each CTA its own boxes (no multicast): rows past M and a tile past N read as zeros.
            const uint32_t sl = scale_at + s * C::kScaleSlotBytes;
            tma_load_2d(sl, &tmap_xs, &full[s], kb & ~3, m0);
            tma_load_2d(sl + BM * 16, &tmap_ws, &full[s], kb & ~3, n0 / 128);
          }
          if constexpr (MC == 1) {
            tma_load_2d(st, xs.map, &full[s], kb * 128, m0);
            tma_load_2d_multicast(st + C::kABytes + rank * (BN / 2) * 128, &tmap_w, &full[s], kb * 128,
                                  n0 + rank * (BN / 2), 0x3);
          } else if constexpr (MC == 2) {
            tma_load_2d_multicast(st + rank * (BM / 2) * 128, &tmap_x, &full[s], kb * 128, m0 + rank * (BM / 2), 0x3);
            tma_load_2d(st + C::kABytes, &tmap_w, &full[s], kb * 128, n0);
          } else {
            tma_load_2d(st, xs.map, &full[s], kb * 128, m0);
            load_w<C>(st + C::kABytes, &tmap_w, &full[s], kb, n0);
          }
        }
      });
    }
    if constexpr (!C::kBlockScales)
      if (tid / 32 == C::kConsumers * 4 + 1)
        for (int u = unit0; u < units; u += unit_step) {
          int m0, n0;
          origin(u, m0, n0);
          if (m0 < a.M && n0 < a.N) prefetch_outer_scales(a, m0, BM, n0, BN, tid & 31);
        }
    // Neither CTA of a cluster leaves while the other may still arrive on its barriers.
    if constexpr (MC != 0) cluster_sync_all();
    return;
  }
  setmaxnreg_inc<C::kConsumerRegs>();

  const int lane = tid & 31;
  const int wid = (tid % 128) / 32;
  const int lr0 = wid * 16 + (lane >> 2);  // row within this warpgroup's 64: lr0, lr0 + 8
  const bool leader = (tid % 128) == 0;
  float acc[BN / 2];
  float ta[BN / 2];
  float tb[C::kDoubleBuffer ? BN / 2 : 1];
  const ConsumerRing<C> ring{smem, full, empty, wg, lane,
                             MC != 0 ? cluster_map_smem(smem_u32(empty), static_cast<uint32_t>(rank ^ 1)) : 0u};
  auto issue = [&](int gg, float(&t)[BN / 2]) { ring.issue(gg, t); };
  int g = 0;
  for_each_item([&](int m0, int n0, int kb0, int kb1, int tail_tile, int piece) {
    const int nkb = kb1 - kb0;
    const int row0 = m0 + wg * 64 + lr0, row1 = row0 + 8;
    const bool ok0 = row0 < a.M, ok1 = row1 < a.M;
    const float* xs0p = a.x_scale + static_cast<size_t>(ok0 ? row0 : 0) * KB;
    const float* xs1p = a.x_scale + static_cast<size_t>(ok1 ? row1 : 0) * KB;
    // (A tile past N, the second of a pair: any valid scale row will do, nothing of it is stored.)
    const float* wsp = a.w_scale + static_cast<size_t>((MC == 2 ? min(n0, a.N - 1) : n0) / 128) * KB;
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) acc[i] = 0.f;
    const RowScales<C::kBlockScales> rs{xs0p + kb0, xs1p + kb0, wsp + kb0, ok0, ok1};
    auto scales = [&](int i) { return rs.at(i); };
    // kTS: k-block kb's scales for this thread's rows, in order, once stage gg is full: a group's 4 read with one
    // 16-byte load a row at the group's first stage (where its boxes landed), kept in registers for the others.
    float4 gx0{}, gx1{}, gw{};
    auto in_stage = [&](int gg, int kb) {
      if ((kb & 3) == 0 || kb == kb0) {
        const uint32_t sl = scale_at + (gg % ST) * C::kScaleSlotBytes;
        gw = ld_shared_f32x4(sl + BM * 16);
        gx0 = ld_shared_f32x4(sl + 16 * (wg * 64 + lr0));
        gx1 = ld_shared_f32x4(sl + 16 * (wg * 64 + lr0 + 8));
      }
      const int j = kb & 3;
      auto pick = [j](const float4& v) { return j == 0 ? v.x : j == 1 ? v.y : j == 2 ? v.z : v.w; };
      const float w = pick(gw);
      return Scales{pick(gx0) * w, pick(gx1) * w};
    };
    auto promote = [&](int gg, const Scales& sc, float(&t)[BN / 2]) { ring.retire(gg, acc, t, sc.s0, sc.s1); };
    if constexpr (C::kFastAccum) {
      ring.accumulate(g, nkb, acc);
      g += nkb;
    } else if constexpr (C::kDoubleBuffer && kTS) {
      ring.template promote_in_turns<true>(g, nkb, acc, ta, tb, [&](int i) { return in_stage(g + i, kb0 + i); });
      g += nkb;
    } else if constexpr (C::kDoubleBuffer) {
      ring.promote_in_turns(g, nkb, acc, ta, tb, scales);
      g += nkb;
    } else if constexpr (kTS) {
      for (int i = 0; i < nkb; ++i, ++g) {
        issue(g, ta);
        const Scales sc = in_stage(g, kb0 + i);
        wgmma_wait<0>();
        promote(g, sc, ta);
      }
    } else {
      for (int i = 0; i < nkb; ++i, ++g) {
        const Scales sc = scales(i);
        issue(g, ta);
        wgmma_wait<0>();
        promote(g, sc, ta);
      }
    }
    if constexpr (!C::kBlockScales)
      scale_outer<BN>(acc, a.x_scale, a.w_scale, row0, n0 + (lane & 3) * 2, a.M, a.N);
    if constexpr (C::kTailSplit) {
      // A piece of a split tile: park this warpgroup's 64 x BN partial (element i of thread t at plane[i * 128 + t]),
      // count it in; the warpgroup that completes the count sums the pieces in the order 0 .. split-1 (its own from
      // its registers: the same sum whoever finishes) and stores the tile; the others are done with it.
      if (tail_tile >= 0) {
        const int t128 = tid % 128;
        auto plane = [&](int q) {
          return a.partials + ((static_cast<size_t>(tail_tile) * split + q) * 2 + wg) * (64 * BN);
        };
        float* mine = plane(piece);
#pragma unroll
        for (int i = 0; i < BN / 2; ++i) gpu::store_global_cg(mine + i * 128 + t128, acc[i]);
        __threadfence();
        named_barrier_sync(2 + wg, 128);
        if (leader) tail_last[wg] = atomicAdd(a.counters + tail_tile * 2 + wg, 1) == split - 1;
        named_barrier_sync(2 + wg, 128);
        if (!tail_last[wg]) return;
        __threadfence();
        // Pieces outer, a plane's 64 loads at once (a loop over the pieces for each element left one L2 round trip
        // in flight and took longer than the tile: 58 against 13 us at 1100 x 2112 x 1024); ta holds the sum.
#pragma unroll
        for (int i = 0; i < BN / 2; ++i) ta[i] = 0.f;
        for (int q = 0; q < split; ++q) {
          if (q == piece) {
#pragma unroll
            for (int i = 0; i < BN / 2; ++i) ta[i] += acc[i];
          } else {
            const float* src = plane(q) + t128;
#pragma unroll
            for (int i = 0; i < BN / 2; ++i) ta[i] += gpu::load_global_cg(src + i * 128);
          }
        }
#pragma unroll
        for (int i = 0; i < BN / 2; ++i) acc[i] = ta[i];
        if (leader) a.counters[tail_tile * 2 + wg] = 0;
      }
    }
    // Epilogue: wait until this warpgroup's previous TMA store has read the staging boxes, write
    // bf16 into them (128-byte swizzle: conflict-free), hand them to TMA.
    if (leader) bulk_wait_read0();
    asm volatile("bar.sync %0, 128;\n" ::"r"(2 + wg));
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      uint8_t* box = epi + (wg * (BN / 64) + j / 8) * 8192;
      const int chunk = j % 8, inb = (lane & 3) * 4;
      *reinterpret_cast<uint32_t*>(box + lr0 * 128 + ((chunk ^ (lr0 & 7)) << 4) + inb) =
          gpu::pack_bf16x2(acc[j * 4 + 0], acc[j * 4 + 1]);
      *reinterpret_cast<uint32_t*>(box + (lr0 + 8) * 128 + ((chunk ^ ((lr0 + 8) & 7)) << 4) + inb) =
          gpu::pack_bf16x2(acc[j * 4 + 2], acc[j * 4 + 3]);
    }
    fence_proxy_async_smem();
    asm volatile("bar.sync %0, 128;\n" ::"r"(2 + wg));
    if (leader) {
#pragma unroll
      for (int h = 0; h < BN / 64; ++h)
        tma_store_2d(&tmap_y, smem_u32(epi + (wg * (BN / 64) + h) * 8192), n0 + h * 64, m0 + wg * 64);
      bulk_commit();
    }
  });
  if (leader) bulk_wait0();
  if constexpr (MC != 0) cluster_sync_all();
#endif
}

// x's maps: boxes of `box` rows for the M tiles of `tile` rows before the last, and for the last one of the rows it
// holds (x_tail_rows, kept in w for the kernel; x_source). Each is encoded only where the launch reads through it and
// the other is a copy, since the encoder runs at every launch, in the timing loops too: a tail box as long as the
// others is the same map, and with one M tile only the tail's is read. cut = false (the persistent kernel's multicast
// X, which reads only mx, x_source's cut): no tail box.
inline bool make_x_maps(CUtensorMap* mx, CUtensorMap* mxt, const Args& a, int tile, int box, bool cut, WgArgs& w) {
  w.x_tail_rows = cut ? x_tail_rows(a.M, tile) : box;
  if (w.x_tail_rows == box) {
    if (!gpu::tma::make_kmajor_map(mx, a.xq, a.M, a.K, box)) return false;
    *mxt = *mx;
    return true;
  }
  if (!gpu::tma::make_kmajor_map(mxt, a.xq, a.M, a.K, w.x_tail_rows)) return false;
  if (a.M <= tile) {
    *mx = *mxt;
    return true;
  }
  return gpu::tma::make_kmajor_map(mx, a.xq, a.M, a.K, box);
}

template <class C>
bool make_w_map(CUtensorMap* mw, const Args& a) {
  if constexpr (C::kPreshuffledW) return gpu::tma::make_preshuffled_map(mw, a.wq, a.N, a.K, C::kBN);
  else return gpu::tma::make_kmajor_map(mw, a.wq, a.N, a.K, C::kMulticast == 1 ? C::kBN / 2 : C::kBN);
}

inline int device_sm_count() {
  static const int n = gpu::current_device_multiprocessors(132);
  return n;
}

// One instance of the persistent kernel (TS: its block scales by TMA), launched with its maps.
template <class C, bool TS>
gpu::ErrorCode run_wgmma_persistent(const CUtensorMap& mx, const CUtensorMap& mxt, const CUtensorMap& mw,
                                    const CUtensorMap& my,
                                    const CUtensorMap& mxs, const CUtensorMap& mws, WgArgs w, void* workspace,
                                    gpu::Stream stream) {
  static std::atomic<int> smem_set{0};
  constexpr int smem = TS ? C::kSmemBytesPS : C::kSmemBytesP;
  auto kernel = wgmma_persistent_kernel<C, TS>;
  if (auto e = gpu::allow_dynamic_shared_memory(kernel, smem, smem_set); e != gpu::kSuccess) return e;
  const int tiles_m = (w.M + C::kBM - 1) / C::kBM, tiles_n = (w.N + C::kBN - 1) / C::kBN;
  if constexpr (C::kMulticast == 0) {
    const int tiles = tiles_m * tiles_n;
    const int grid = tiles < device_sm_count() ? tiles : device_sm_count();
    if constexpr (C::kTailSplit) {
      const TailPlan tp = tail_plan(tiles, grid, w.KB);
      w.tail_tiles = tp.tail;
      w.tail_split = tp.split;
      w.counters = static_cast<int*>(workspace);
      w.partials = reinterpret_cast<float*>(static_cast<uint8_t*>(workspace) + counter_region_bytes(w.M, w.N));
    }
    kernel<<<grid, C::kThreads, smem, stream>>>(mx, mxt, mw, my, mxs, mws, w);
    return gpu::get_last_error();
  } else {
    // Clusters of two: as many as the device holds at once (an SM left over in a GPC takes none), at most one a
    // pair of tiles.
    const int pairs = C::kMulticast == 1 ? ((tiles_m + 1) / 2) * tiles_n : tiles_m * ((tiles_n + 1) / 2);
    static const int resident = gpu::max_active_clusters(kernel, C::kThreads, smem, 2, device_sm_count() / 2);
    const int clusters = pairs < resident ? pairs : resident;
    return gpu::launch(kernel, dim3(2 * clusters), dim3(C::kThreads), smem, stream,
                       gpu::LaunchOpts{dim3(2, 1, 1), false}, mx, mxt, mw, my, mxs, mws, w);
  }
}

template <class C>
gpu::ErrorCode launch_wgmma_persistent(const InstanceParams&, const Args& a, gpu::Stream stream) {
  CUtensorMap mx, mxt, mw, my, mxs, mws;
  // Multicast: each CTA loads half of the shared operand's box.
  const int box_x = C::kMulticast == 2 ? C::kBM / 2 : C::kBM;
  WgArgs w{a.x_scale, a.w_scale, a.y, a.M, a.N, a.K, a.K / 128, 1};
  if (!make_x_maps(&mx, &mxt, a, C::kBM, box_x, C::kMulticast != 2, w) || !make_w_map<C>(&mw, a) ||
      !gpu::tma::make_output_map(&my, a.y, a.M, a.N))
    return gpu::kErrorInvalidValue;
  // The block scales by TMA where the maps can be made (KB % 4 == 0, 16-byte aligned bases), else the same tile
  // loading them from global memory.
  if constexpr (C::kTmaScalesP)
    if (gpu::tma::make_float_map(&mxs, a.x_scale, a.M, w.KB, 4, C::kBM) &&
        gpu::tma::make_float_map(&mws, a.w_scale, (a.N + 127) / 128, w.KB, 4, 1))
      return run_wgmma_persistent<C, true>(mx, mxt, mw, my, mxs, mws, w, a.workspace, stream);
  return run_wgmma_persistent<C, false>(mx, mxt, mw, my, mx, mw, w, a.workspace, stream);  // (the last two maps unused)
}

template <class C>
gpu::ErrorCode launch_wgmma(const InstanceParams& p, const Args& a, gpu::Stream stream) {
  static std::atomic<int> smem_set{0};
  static_assert(C::kSmemBytes <= 227 * 1024, "shared memory per CTA exceeds the sm_90 limit (grid kernel)");
  auto kernel = wgmma_kernel<C>;
  const int smem = C::kSmemBytes + split_recv_bytes(C::kBM, C::kBN, p.split_k);
  if (smem > 227 * 1024) return gpu::kErrorInvalidValue;  // why_not refuses it first
  if (auto e = gpu::allow_dynamic_shared_memory(kernel, smem, smem_set); e != gpu::kSuccess) return e;
  CUtensorMap mx, mxt, mw;
  WgArgs w{a.x_scale, a.w_scale, a.y, a.M, a.N, a.K, a.K / 128, p.split_k};
  if (!make_x_maps(&mx, &mxt, a, C::kBM, C::kBM, true, w) || !make_w_map<C>(&mw, a))
    return gpu::kErrorInvalidValue;
  const dim3 grid((a.N + C::kBN - 1) / C::kBN, (a.M + C::kBM - 1) / C::kBM, p.split_k);
  // Split-K: the S CTAs of a tile are one 1 x 1 x S cluster (no cluster attribute when S = 1).
  return gpu::launch(kernel, grid, dim3(C::kThreads), smem, stream,
                     gpu::LaunchOpts{dim3(1, 1, static_cast<unsigned>(p.split_k)), false}, mx, mxt, mw, w);
}
#endif

}  // namespace cktune::kernels::a8w8_blockscale::detail
