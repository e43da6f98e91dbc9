#pragma once
// Prefill kernels of both MoE stages on Hopper's wgmma (sm_90a), per sorted block (block_m rows of one
// expert) and tile of 128 weight rows:
//   stage 1: h = xq[token] . w1[e]^T over K = model_dim for 64 gate rows and their 64 up rows, then
//            a[token*topk + slot] = bf16(silu(gate) * up (* routed weight)) in the registers;
//   stage 2: y = aq . w2[e]^T over K = inter_dim for 128 output columns, times the routed weight, into
//            y_slots.
// The weights, the bytes that are reused, arrive through TMA; the activation rows are gathered through
// the sorted ids, so a producer warpgroup copies them with cp.async straight into the 128-byte-swizzled
// layout TMA would have produced, each thread's copies completing on the stage's mbarrier. block_m/64
// consumer warpgroups issue wgmma m64n128k32 (fp8) on 64 rows each; every 128-K block goes into a
// fresh fp32 partial that is promoted into the accumulator times the block's activation and weight
// scales on the CUDA cores.
//
// Accuracy of stage 1 (docs/arch/moe.md, "How a pipeline is checked"): the fp8
// wgmma sums the 32 products of an instruction in fixed point and keeps about 14 bits, so its stage-1
// outputs differ from an exact sum by ~1e-4 of their size, within AITER's 1e-2 rule; the re-quantisation
// to fp8 before stage 2 turns a few of those into flipped roundings, so a pipeline is checked stage by
// stage (stage 2 against the reference fed this stage 1's own output), as AITER's tuner checks it.
#include <cstdint>

#include "../common/arch_sm90.hpp"
#include "../common/memory.hpp"
#include "../common/numeric.hpp"
#include "../common/tma_map.hpp"
#include "../common/wgmma_block.hpp"
#include "stages.cuh"
#include "tile_walk.hpp"

namespace cktune::kernels::moe_2stages::detail {

// Either stage, fp8 wgmma: BM rows (64: one consumer warpgroup, two CTAs an SM; 128: two), ST stages.
// P2 (stage 1): k-blocks through two partial tiles that take turns (wgmma_in_turns), so that the tensor cores
// run block i+1 while the CUDA cores promote block i, as the GEMM's `wgmmap2` does.
// TNT (stage 2): output columns of a tile, 128 or 256. A 256-column tile is two halves of 128 that share the stage's
// gathered rows: each warpgroup runs the halves one after the other on the same accumulator registers.
// CG: column warpgroups. With CG = 2 a tile is 256 weight rows and its block's gathered rows feed two consumer
// warpgroups side by side, one a 128-row half (block_m 64 only: one CTA an SM). Stage 1: two gate halves and their up
// halves, so the rows cross L2 once for 128 output columns instead of once for 64. Stage 2: 256 output columns, once
// for 256 instead of 128.
template <int BM, int ST, bool P2 = false, int TNT = 128, int CG = 1>
struct WgCfg {
  static constexpr int kBM = BM, kTN = TNT, kStages = ST;
  static constexpr int kWN = 128;             // columns a warpgroup's wgmma covers
  static constexpr int kColGroups = CG;       // warpgroups side by side along the tile's columns
  static constexpr int kHalves = TNT / (kWN * CG);  // of a tile, one after the other
  static constexpr bool kPairs = P2;
  static constexpr int kRowGroups = BM / 64;
  static constexpr int kConsumers = kRowGroups * CG;
  static constexpr int kThreads = (kConsumers + 1) * 128;
  static constexpr int kMinBlocks = kConsumers == 1 ? 2 : 1;
  // Two-half stage 2 (kSide below): the producer's side copies need more than 40 registers, so the consumers give 8.
  static constexpr bool kSide = kHalves > 1;
  static constexpr int kProducerRegs = kSide ? 56 : 40;
  static constexpr int kConsumerRegs = kMinBlocks == 2 ? 208 : kSide ? 224 : 232;
  static_assert(gpu::sm90::register_split_fits(kThreads, kMinBlocks, kProducerRegs, kConsumers, kConsumerRegs),
                "register split exceeds the CTA's registers at launch");
  static constexpr int kABytes = BM * 128, kBBytes = kTN * 128;
  static constexpr int kStageBytes = kABytes + kBBytes;
  // Per consumer warp (staged stores only), 8 output rows of the tile (bf16, at most 128 columns; 16-byte pieces swizzled by
  // row against bank conflicts), so that rows leave in whole 16-byte pieces, a warp writing 2 rows at once.
  static constexpr int kOutWarpBytes = 8 * kWN * 2;
  static constexpr int kOutOfs = ST * kStageBytes;
  // Two-half stage 2: a side area a stage, which the producer fills with cp.async when the stage holds a tile's first
  // k-block, so that the consumers load no scale from global memory: each row's activation scales (16 bytes a row,
  // KB <= 4 floats), then the weight scales of the tile's two 128-column blocks (16 bytes a block).
  static constexpr int kSideW = 16 * BM;
  static constexpr int kSideBytes = kSide ? 16 * BM + 16 * 2 : 0;
  static constexpr int kSideOfs = kOutOfs + kConsumers * 4 * kOutWarpBytes;
  static constexpr int kBarOfs = kSideOfs + ST * kSideBytes;
  // Stage 1 `_q` (CG = 2): each row's amax over a column warpgroup's 64 gated columns, [CG][64] floats, which the two
  // warpgroups exchange to re-quantise the tile's 128 columns (store_requantize_tile).
  static constexpr int kXchOfs = kBarOfs + 2 * ST * 8;
  static constexpr int kXchBytes = CG == 2 ? CG * 64 * 4 : 0;
  // Stage 2 with tiles claimed at run time (`_dyn`): kTileQ barriers, then kTileQ ints, through which the producer
  // hands each tile's successor to the consumers (wg_stage_kernel).
  static constexpr int kTileQ = 8;
  static constexpr int kDynOfs = kXchOfs + kXchBytes;
  static constexpr int kDynBytes = kTileQ * (8 + 4);
  static constexpr int kSmem = kDynOfs + kDynBytes + 1024;  // + slack for the 1024-byte alignment
  static_assert(BM == 64 || BM == 128, "one or two consumer warpgroups");
  static_assert(TNT == 128 || TNT == 256, "one or two halves of 128 columns");
  static_assert(CG == 1 || (CG == 2 && BM == 64 && TNT == 256 && !P2), "column warpgroups: block_m 64, one partial each");
  static_assert(kStageBytes % 1024 == 0, "stages keep the 1024-byte alignment of the swizzle");
  static_assert(kSmem * kMinBlocks <= 227 * 1024, "shared memory per SM");
};

#if defined(CKTUNE_CUDA)
// The tile's outputs from the consumers' registers. Each thread holds, per 8-column group j, two
// adjacent columns of its two rows (h = 0: row ri0, h = 1: ri1, 8 further), packed as the output's two
// bf16 values:
//   stage 1: a = bf16(silu(gate) * up (* routed weight)); gate group j, its up partner j + HN/8;
//   stage 2: y = bf16(w * acc), into the slot's row of y_slots, or (kAcc) added into the token's row
//            of the output (bf16 atomic adds in L2; the output was zeroed before stage 2).
// Stored directly (4-byte pieces, padding rows not at all) or staged (per h, the warp's 8 rows go
// through its staging rows and leave in 16-byte pieces, 2 rows an instruction).
// A split-K stage 1 stores only its rank's share of the column groups: j / groups_per_rank == rank
// (groups_per_rank = 0: every group).
// Stage 1's output pair of 8-column group j of the thread's row h: bf16(silu(gate) * up * rw) of its two columns, gate
// group j and its up partner j + HN/8, packed. store_tile and store_requantize_tile take the same bits from here.
template <int HN, int N>
__device__ __forceinline__ uint32_t gated_pair(const float (&acc)[N], int h, int j, float rw) {
  const float g0 = acc[j * 4 + 2 * h], g1 = acc[j * 4 + 2 * h + 1];
  const float u0 = acc[(j + HN / 8) * 4 + 2 * h], u1 = acc[(j + HN / 8) * 4 + 2 * h + 1];
  return gpu::pack_bf16x2(silu(g0) * u0 * rw, silu(g1) * u1 * rw);
}

template <class C, bool kS1, bool kStaged, bool kAcc>
__device__ __forceinline__ void store_tile(const Args& a, const float (&acc)[C::kWN / 2], const RowInfo& ri0,
                                           const RowInfo& ri1, int n0, uint8_t* smem, int tid, int rank = 0,
                                           int groups_per_rank = 0) {
  constexpr int TN = C::kWN, HN = TN / 2;
  constexpr int OC = kS1 ? HN : TN;  // output columns of the tile (of a half, for a two-half stage 2)
  const int lane = tid & 31, c0 = (lane & 3) * 2;
  auto pair = [&](int h, int j, float rw) {
    if constexpr (kS1) {
      return gated_pair<HN>(acc, h, j, rw);
    } else {
      return gpu::pack_bf16x2(acc[j * 4 + 2 * h] * rw, acc[j * 4 + 2 * h + 1] * rw);
    }
  };
  static_assert(!(kS1 && kAcc), "stage 1 stores its rows");
  uint16_t* base = kS1 ? a.a : (kAcc ? a.out : a.y_slots);
  const int width = kS1 ? a.inter_dim : a.model_dim;
  uint8_t* stage_rows = smem + C::kOutOfs + ((tid / 32) % (4 * C::kConsumers)) * C::kOutWarpBytes;
  const int lr = lane >> 2;  // this thread's row among the warp's 8
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const RowInfo& ri = h ? ri1 : ri0;
    const float rw = kS1 ? (a.doweight_stage1 ? ri.weight : 1.0f) : (a.doweight_stage1 ? 1.0f : ri.weight);
    const int dst_row = ri.token < 0 ? -1 : (kAcc ? ri.token : ri.token * a.topk + ri.slot);
    if constexpr (!kStaged) {
      if (dst_row < 0) continue;
      uint16_t* dst = base + static_cast<size_t>(dst_row) * width + n0 + c0;
#pragma unroll
      for (int j = 0; j < OC / 8; ++j) {
        if (groups_per_rank > 0 && j / groups_per_rank != rank) continue;
        if constexpr (kAcc)
          gpu::sm90::red_add_bf16x2(dst + j * 8, pair(h, j, rw));
        else
          *reinterpret_cast<uint32_t*>(dst + j * 8) = pair(h, j, rw);
      }
    } else {
      constexpr int kChunks = OC * 2 / 16;  // 16-byte pieces a row, swizzled by row
      constexpr int kPieces = 8 * kChunks / 32;  // a lane's pieces of the warp's 8 rows
      static_assert(8 * kChunks % 32 == 0, "the warp's rows split evenly over its lanes");
      // In three passes, each issued whole before the next: the pieces' destination rows (shuffles, hidden behind
      // the staging writes), the pieces (shared-memory loads), then the stores or adds, predicated per piece. Done
      // piece by piece, each add waited for its shuffle and its load in turn, and the asm's memory clobber kept the
      // next piece's load behind the previous add.
      int dr[kPieces];
#pragma unroll
      for (int i = 0; i < kPieces; ++i) dr[i] = __shfl_sync(0xffffffffu, dst_row, (lane + 32 * i) / kChunks * 4);
      uint8_t* row = stage_rows + lr * (OC * 2);
#pragma unroll
      for (int j = 0; j < OC / 8; ++j) *reinterpret_cast<uint32_t*>(row + ((j ^ lr) * 16) + c0 * 2) = pair(h, j, rw);
      __syncwarp();
      uint4 v[kPieces];
#pragma unroll
      for (int i = 0; i < kPieces; ++i) {
        const int q = lane + 32 * i, r = q / kChunks, c = q % kChunks;
        v[i] = *reinterpret_cast<const uint4*>(stage_rows + r * (OC * 2) + ((c ^ r) * 16));
      }
      __syncwarp();  // the staging rows are read before the next h writes them
#pragma unroll
      for (int i = 0; i < kPieces; ++i) {
        const int c = (lane + 32 * i) % kChunks;
        uint16_t* dst = base + static_cast<size_t>(max(dr[i], 0)) * width + n0 + c * 8;  // padding rows: not written
        if constexpr (kAcc)
          gpu::sm90::red_add_bf16x8_if(dst, v[i], dr[i] >= 0);
        else if (dr[i] >= 0)
          *reinterpret_cast<uint4*>(dst) = v[i];
      }
    }
  }
}

// Stage 1 `_q`: store_tile's direct stores of the tile's bf16 rows, and the tile's 128 gated columns (group `group` of
// each row's 1x128 blocks; 64 in each of the two column warpgroups, cg) re-quantised for stage 2 as quantize_a_kernel
// does, from the same bf16 values: a row's amax over its quad's lanes, then over both warpgroups through xch ([2][64]
// floats), scale = amax / 448, each value's fp8 byte of v / scale (stage_math.cuh). Writes a, aq and a_scale of the
// tile's routed rows (padding rows cost no arithmetic); every consumer thread takes part in the exchange (two barriers
// over both warpgroups). lr0: the thread's first row of the block (the second is lr0 + 8).
template <class C>
__device__ __forceinline__ void store_requantize_tile(const Args& a, const float (&acc)[C::kWN / 2], const RowInfo& ri0,
                                                      const RowInfo& ri1, int nc, int group, float* xch, int lr0,
                                                      int cg, int tid) {
  constexpr int HN = C::kWN / 2;  // a warpgroup's gate columns
  static_assert(C::kColGroups == 2 && C::kRowGroups == 1 && HN == 64, "128 gated columns over two column warpgroups");
  constexpr int kConsumerThreads = C::kConsumers * 128;
  const int lane = tid & 31, c0 = (lane & 3) * 2;
  const int I = a.inter_dim;
  uint32_t bits[2][HN / 8];
  float m[2] = {0.f, 0.f};
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const RowInfo& ri = h ? ri1 : ri0;
    if (ri.token < 0) continue;
    const float rw = a.doweight_stage1 ? ri.weight : 1.0f;
    uint16_t* dst = a.a + (static_cast<size_t>(ri.token) * a.topk + ri.slot) * I + nc + c0;
#pragma unroll
    for (int j = 0; j < HN / 8; ++j) {
      bits[h][j] = gated_pair<HN>(acc, h, j, rw);
      *reinterpret_cast<uint32_t*>(dst + j * 8) = bits[h][j];
      m[h] = fmaxf(m[h], fmaxf(fabsf(gpu::bf16_bits_to_f32(static_cast<uint16_t>(bits[h][j] & 0xffffu))),
                               fabsf(gpu::bf16_bits_to_f32(static_cast<uint16_t>(bits[h][j] >> 16)))));
    }
  }
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    m[h] = fmaxf(m[h], __shfl_xor_sync(0xffffffffu, m[h], 1));
    m[h] = fmaxf(m[h], __shfl_xor_sync(0xffffffffu, m[h], 2));
  }
  if ((lane & 3) == 0) xch[cg * 64 + lr0] = m[0], xch[cg * 64 + lr0 + 8] = m[1];
  gpu::sm90::named_barrier_sync(3, kConsumerThreads);
  m[0] = fmaxf(m[0], xch[(1 - cg) * 64 + lr0]);
  m[1] = fmaxf(m[1], xch[(1 - cg) * 64 + lr0 + 8]);
  gpu::sm90::named_barrier_sync(3, kConsumerThreads);  // both have read before the next tile writes
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const RowInfo& ri = h ? ri1 : ri0;
    if (ri.token < 0) continue;
    const size_t row = static_cast<size_t>(ri.token) * a.topk + ri.slot;
    const float scale = requant_scale(m[h]);
    uint8_t* dst = a.aq + row * I + nc + c0;
#pragma unroll
    for (int j = 0; j < HN / 8; ++j) {
      const uint32_t q = requant_fp8(gpu::bf16_bits_to_f32(static_cast<uint16_t>(bits[h][j] & 0xffffu)), scale) |
                         requant_fp8(gpu::bf16_bits_to_f32(static_cast<uint16_t>(bits[h][j] >> 16)), scale) << 8;
      *reinterpret_cast<uint16_t*>(dst + j * 8) = static_cast<uint16_t>(q);
    }
    if (cg == 0 && (lane & 3) == 0) a.a_scale[row * (I / 128) + group] = scale;
  }
}

// A stage 1 routing its first tile itself (Args::route_stage1): a warpgroup (128 threads, pt = 0..127) finds, from
// topk_ids and without the sorting, what the sorting will put in the block of the CTA's first tile, so that the tile's
// weight requests go out while the sorting still runs (the sorting ends ~3.5 us into an 8-token DeepSeek-V3 pipeline,
// and its completion reaches the stage's wait ~1.5 us later: docs/perf.md, 2026-11-30 06:58). The first consumer
// warpgroup does it: the producer's 40 registers could not hold it beside its ring without spilling (2026-11-30).
// The sorting's order: experts by increasing id, each padded to whole blocks of BM rows, an expert's pairs in flat
// (token, slot) order; ids outside [0, experts) are dropped. Counts by shared-memory atomics, the blocks over the
// experts by a scan over the warpgroup, the owner of the tile's block by the thread whose experts hold it, and the
// pairs' ranks by ballots in flat order. `scratch`: RouteScratch::kBytes of shared memory no one else uses yet. Named
// barrier 5 (the warpgroup). Leaves in `scratch`: [kOwner] the expert (-1: the CTA has no tile), [kOwner + 1] the
// sorted blocks in use, [kCol] the tile's column tile, [kRows] the block's BM packed sorted ids.
struct RouteScratch {
  static constexpr int kSteps = kRouteMaxPairs / 128;  // pairs a thread
  static constexpr int kCounts = 0, kWarpBlocks = kRouteMaxExperts, kMatches = kWarpBlocks + 4,
                       kOwner = kMatches + kSteps * 4, kFirstBlock = kOwner + 2, kCol = kFirstBlock + 1,
                       kRows = kCol + 1;
  static constexpr int kBytes = (kRows + 128) * 4;
  static_assert(kSteps * 4 <= 32, "one warp scans the (step, warp) match counts");
};

// The sum of v over lanes 0..lane of the warp (every lane takes part).
__device__ __forceinline__ int warp_inclusive_sum(int v, int lane) {
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const int up = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += up;
  }
  return v;
}

template <int BM>
__device__ __forceinline__ void route_first_tile(const Args& a, int* scratch, int pt, int col_tiles, int group,
                                                 int tile) {
  using R = RouteScratch;
  constexpr int P = R::kSteps, kBar = 5, kN = 128;
  int* cnt = scratch + R::kCounts;
  int* wblocks = scratch + R::kWarpBlocks;
  int* matches = scratch + R::kMatches;
  int* owner = scratch + R::kOwner;
  int* first_block = scratch + R::kFirstBlock;
  uint32_t* rows = reinterpret_cast<uint32_t*>(scratch + R::kRows);
  const int E = a.experts, n = a.tokens * a.topk, lane = pt & 31, warp = pt >> 5;
  int key[P];  // the expert of flat pair j * 128 + pt (-1: none or dropped)
#pragma unroll
  for (int j = 0; j < P; ++j) {
    const int f = j * kN + pt;
    const int e = f < n ? __ldg(a.topk_ids + f) : -1;
    key[j] = e >= 0 && e < E ? e : -1;
  }
  for (int e = pt; e < E; e += kN) cnt[e] = 0;
  gpu::sm90::named_barrier_sync(kBar, kN);
#pragma unroll
  for (int j = 0; j < P; ++j)
    if (key[j] >= 0) atomicAdd(&cnt[key[j]], 1);
  gpu::sm90::named_barrier_sync(kBar, kN);
  // Blocks over the experts: thread pt takes experts [e0, e1); `first` = the first block of e0.
  const int per = (E + kN - 1) / kN, e0 = min(E, pt * per), e1 = min(E, e0 + per);
  int mine = 0;
  for (int e = e0; e < e1; ++e) mine += (cnt[e] + BM - 1) / BM;
  const int incl = warp_inclusive_sum(mine, lane);
  if (lane == 31) wblocks[warp] = incl;
  gpu::sm90::named_barrier_sync(kBar, kN);
  int used = 0, first = incl - mine;
#pragma unroll
  for (int w = 0; w < 4; ++w) {
    const int b = wblocks[w];
    used += b;
    if (w < warp) first += b;
  }
  if (pt == 0) owner[1] = used;
  if (tile >= used * col_tiles) {  // the same for every thread
    if (pt == 0) owner[0] = -1;
    return;
  }
  const TileAt at = TileWalk::place(tile, used, col_tiles, group);
  if (pt == 0) scratch[R::kCol] = at.col;
  if (at.block >= first && at.block < first + mine) {  // one thread: the owner and its first block
    for (int e = e0, b = first; e < e1; ++e) {
      const int nb = (cnt[e] + BM - 1) / BM;
      if (at.block < b + nb) {
        owner[0] = e, *first_block = b;
        break;
      }
      b += nb;
    }
  }
  gpu::sm90::named_barrier_sync(kBar, kN);
  const int e = owner[0], skip = (at.block - *first_block) * BM;  // the block's first rank among e's pairs
#pragma unroll
  for (int j = 0; j < P; ++j) {
    const uint32_t m = __ballot_sync(0xffffffffu, key[j] == e);
    if (lane == 0) matches[j * 4 + warp] = __popc(m);
  }
  gpu::sm90::named_barrier_sync(kBar, kN);
  if (warp == 0) {  // exclusive scan of the matches in flat order: (step, warp) = index j * 4 + warp
    const int v = lane < P * 4 ? matches[lane] : 0;
    const int x = warp_inclusive_sum(v, lane);
    if (lane < P * 4) matches[lane] = x - v;
  }
  gpu::sm90::named_barrier_sync(kBar, kN);
  const int count = min(BM, cnt[e] - skip);
  const uint32_t below = (1u << lane) - 1u;
#pragma unroll
  for (int j = 0; j < P; ++j) {
    const uint32_t m = __ballot_sync(0xffffffffu, key[j] == e);
    if (key[j] != e) continue;
    const int r = matches[j * 4 + warp] + __popc(m & below) - skip, f = j * kN + pt;
    if (r >= 0 && r < BM) rows[r] = (static_cast<uint32_t>(f % a.topk) << 24) | static_cast<uint32_t>(f / a.topk);
  }
  if (pt < BM && pt >= count) rows[pt] = (static_cast<uint32_t>(a.topk) << 24) | static_cast<uint32_t>(a.tokens);
}

// Split-K stage 1 (kSplit CTAs of a cluster take the k-blocks of one tile in kSplit slices): each CTA
// parks its fp32 partials in its stage ring (free once every k-block is consumed: the producer issues
// exactly the slice's k-blocks), in the consumers' fragment order (value i of thread t at i*128 + t, so
// that a warp's 32 accesses are consecutive), then rank r sums gate column groups [r*G, (r+1)*G) and
// their up partners over the cluster's CTAs q = 0..kSplit-1 in that fixed order (deterministic; the same
// sum whichever rank computes it) and stores them. One consumer warpgroup (block_m 64).
template <class C, int kSplit>
__device__ __forceinline__ void split_reduce_store(const Args& a, float (&acc)[C::kTN / 2], const RowInfo& ri0,
                                                   const RowInfo& ri1, int n0, uint8_t* smem, int tid, int rank) {
  namespace cg = cooperative_groups;
  constexpr int TN = C::kTN, HN = TN / 2, G = HN / 8 / kSplit;
  static_assert(C::kConsumers == 1 && HN / 8 % kSplit == 0, "block_m 64; the gate groups split evenly");
  static_assert(TN / 2 * 128 * 4 <= C::kStages * C::kStageBytes, "the parked partials fit the stage ring");
  gpu::sm90::named_barrier_sync(1, 128);  // every consumer warp's last wgmma has read its stage
  float* park = reinterpret_cast<float*>(smem);
#pragma unroll
  for (int i = 0; i < TN / 2; ++i) park[i * 128 + tid] = acc[i];
  cg::cluster_group cluster = cg::this_cluster();
  cluster.sync();  // every CTA of the cluster has parked (and started: its shared memory is mapped)
  const float* parts[kSplit];
#pragma unroll
  for (int q = 0; q < kSplit; ++q) parts[q] = cluster.map_shared_rank(park, q);
#pragma unroll
  for (int j = 0; j < HN / 8; ++j) {
    if (j / G != rank) continue;
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      const int ig = j * 4 + c, iu = (j + HN / 8) * 4 + c;
      float sg = 0.f, su = 0.f;
#pragma unroll
      for (int q = 0; q < kSplit; ++q) {
        sg += parts[q][ig * 128 + tid];
        su += parts[q][iu * 128 + tid];
      }
      acc[ig] = sg;
      acc[iu] = su;
    }
  }
  store_tile<C, true, false, false>(a, acc, ri0, ri1, n0, smem, tid, rank, G);
  cluster.sync();  // the others have read this CTA's partials before it exits
}

// kS1: stage 1 (gate/up rows of w1, K = model_dim, SiLU gating into a) or stage 2 (rows of w2, K =
// inter_dim, into y_slots). The tensor map holds every expert's weights as one 2-D map
// ([E * rows, K]), boxes of 64 rows for stage 1 (a gate half and an up half) and 128 for stage 2.
//
// Persistent: CTA c takes tiles c, c + gridDim.x, ... (in tile_at's order), and the stage ring runs on
// across tiles, so the producer is already loading the next tile's k-blocks while the consumers finish
// and store the current one. Stage 2 has only inter_dim/128 = 2..4 k-blocks a tile: one CTA per tile
// spent most of its life waiting for its first loads and storing.
// The producer also loads the next tile's sorted ids while it issues the current tile's k-blocks.
//
// kStaged: the output rows leave through shared memory in whole 16-byte pieces (a warp writes 2 rows
// of 256 bytes an instruction) instead of each thread's 4-byte pairs, which use half of every 32-byte
// sector they touch (H200, DeepSeek-V3 TP8 16384 tokens, stage 2: 117 M store sectors for 1.9 GB, ncu).
// Measured to pay for the 128-row stage 2 in prefill and to cost where blocks are mostly padding, so
// both are instances.
//
// kAcc (stage 2): each row times its routed weight is added into its token's output row with bf16
// atomic adds, as AITER's stage 2 adds into the buffer its moe_sorting zeroed, instead of a per-slot
// row that a reduction reads back (at 16384 DeepSeek-V3 tokens 1.9 GB written and read again). The
// adds are cheap while the rows they touch stay in L2: with col_group column tiles at a time, every
// block of the group walks over [tokens, col_group*128] of the output, 4.2 MB a column tile at 16384
// tokens, against 235 MB for the whole output.
//
// C::kHalves == 2 (stage 2, `_n256`): a tile is 256 output columns, two halves of 128 that one warpgroup runs one
// after the other on the same registers (a 64x256 accumulator and its partial would need 256 registers a thread),
// both from the same stage: the block's gathered rows cross L2 once for 256 columns instead of once for 128.
//
// kSplit > 1 (stage 1, decode): not persistent; the kSplit CTAs of cluster (x, 0, 0..kSplit-1) take tile x,
// each a slice of its k-blocks, and reduce through the cluster (split_reduce_store). At 2 DeepSeek-V3
// tokens the unsplit stage 1 has 64 tiles for 264 CTA slots, each streaming 917 KB through a 4-stage
// ring: DRAM at 37% (ncu).
//
// kQuant (stage 1, CG = 2: a tile is one 1x128 group of its rows): the epilogue also re-quantises the tile for stage 2
// (store_requantize_tile), so that the pipeline needs no quantize_a_kernel between the stages.
//
// kDyn (stage 2, one half, `_dyn`): a CTA's first two tiles are c and c + gridDim.x, as above; every later one it claims
// at run time from Args::tile_counter (the next unclaimed index past 2 * gridDim.x), so that a CTA whose share of DRAM is
// smaller takes fewer tiles and the CTAs end together. The producer's first thread claims tile j + 2 when it starts
// tile j (the atomic's round trip passes while tile j is issued) and hands tile j + 1's index to its warpgroup and the
// consumers through a small ring in shared memory (kTileQ slots, an mbarrier each), before tile j's weights are asked
// for. Claims come only after the wait for the previous grid; the last CTA to finish puts the counter back to zero.
template <class C, bool kS1, bool kStaged, bool kAcc, int kSplit = 1, bool kQuant = false, bool kRoute = false,
          bool kDyn = false>
__global__ void __launch_bounds__(C::kThreads, C::kMinBlocks)
    wg_stage_kernel(const __grid_constant__ CUtensorMap tmap_w, const Args a, int col_tiles, int col_group) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 900) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace cktune::gpu::sm90;
  constexpr int BM = C::kBM, TN = C::kTN, HN = TN / 2, ST = C::kStages;
  constexpr int WN = C::kWN;  // columns of a warpgroup's accumulator: TN, or half of it (two-half stage 2, CG = 2)
  constexpr int WH = WN / 2;  // stage 1: a warpgroup's gate columns (its up partners follow)
  static_assert(!kS1 || C::kHalves == 1, "stage 1 tiles are one 128-row wgmma wide");
  static_assert(!kQuant || (kS1 && kSplit == 1 && C::kColGroups == 2), "re-quantising stage 1: a tile is a 1x128 group");
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = align_smem<1024>(smem_raw);
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + C::kBarOfs);
  uint64_t* empty = full + ST;
  // Shared-memory addresses of the ring and its barriers, converted once: converting a generic pointer in the loops
  // cost each k-block a read of the CTA's cluster id and its wait (ncu source counters, 2026-11-29).
  const uint32_t smem_at = smem_u32(smem), full_at = smem_u32(full), empty_at = smem_u32(empty);
  // Two-half stage 2: the consumers read the tile's scales from the side area of the stage that holds its first k-block
  // (WgCfg), instead of global loads that ptxas moved into uniform registers at once and waited on (ncu, docs/perf.md
  // 2026-11-29 22:10 and 2026-11-30). One-half rows keep the loads: with the scales (or, before, the expert id) through
  // the stage their stage 2 was slower (docs/perf.md, 2026-11-29 23:46 and 2026-11-30 02:14).
  constexpr bool kSide = !kS1 && C::kSide;
  const uint32_t side_at = smem_at + C::kSideOfs;
  // kDyn: slot j % Q's barrier completes its phase (j / Q) once tile_of[j % Q] holds the tile after this CTA's tile j.
  static_assert(!kDyn || (!kS1 && C::kHalves == 1 && ST <= 4),
                "run-time tiles: a one-half stage 2 whose early requests cover at most its two fixed tiles");
  constexpr int Q = C::kTileQ;
  uint64_t* tile_full = reinterpret_cast<uint64_t*>(smem + C::kDynOfs);
  const uint32_t tile_full_at = smem_u32(tile_full), tile_of_at = tile_full_at + 8 * Q;
  // The index of this CTA's tile j + 1, once the producer has published it (every thread of the CTA may ask).
  auto next_tile_of = [&](int j) {
    mbar_wait_at(tile_full_at + 8 * (j % Q), (j / Q) & 1);
    return ld_shared_s32(tile_of_at + 4 * (j % Q));
  };

  const int tid = threadIdx.x, wg = warp_uniform(tid / 128);
  const int D = a.model_dim, I = a.inter_dim, K = kS1 ? D : I, KB = K / 128;
  // What touches nothing the previous kernel writes comes before the wait for it: the barriers and the
  // weights' descriptor (a kernel parameter).
  if (tid == 0) {
    for (int s = 0; s < ST; ++s) {
      mbar_init(&full[s], 128 + 1);             // the producers' cp.async arrivals + the TMA transaction
      mbar_init(&empty[s], C::kConsumers * 4);  // one arrival per consumer warp
    }
    if constexpr (kDyn)
      for (int q = 0; q < Q; ++q) mbar_init(&tile_full[q], 1);  // the producer's first thread
    fence_barrier_init();
  }
  if (tid == C::kConsumers * 128) tma_prefetch_desc(&tmap_w);
  // Stage 1 reads the sorting's outputs: it waits for the kernel before it (the sorting) first. Stage 2
  // comes after the re-quantisation (or right after a `_q` stage 1), which starts only once stage 1 has passed its own
  // wait, so the sorting has completed when stage 2 starts: it reads the sorting's outputs at once and asks for its
  // first weights (which no kernel writes) before it waits for the re-quantised rows (below).
  //
  // A stage 1 that routes its first tile itself (kRoute: route_first_tile, decode sizes) waits later: its producer once
  // that tile's k-blocks are issued, its consumers once they have run it. Nothing either reads or writes before its wait
  // is touched by the sorting, and every kernel before the sorting has completed (the sorting lets this stage be
  // scheduled only after its own wait). Both wait before this stage lets stage 2 be scheduled, so stage 2 still starts
  // after the sorting has completed.
  constexpr bool route = kRoute;
  static_assert(!kRoute || (kS1 && kSplit == 1), "routing itself: an unsplit stage 1");
  if constexpr (kS1 && !route) gpu::follow_previous_grid();
  int used_blocks = 0, tiles = 0;  // a routing stage 1 takes them from its own routing (the sorting's, by construction)
  if constexpr (!route) {
    used_blocks = a.num_valid_ids[0] / BM;
    tiles = used_blocks * col_tiles;
  }
  static_assert(kSplit == 1 || (kS1 && !kStaged && !kAcc), "split-K is a stage-1 instance with direct stores");
  static_assert(!kS1 || kStaged || RouteScratch::kBytes <= C::kConsumers * 4 * C::kOutWarpBytes,
                "stage 1 routes its first tile in the staging area of the stores, which it does not use");
  const int rank = kSplit > 1 ? static_cast<int>(blockIdx.z) : 0;  // cluster dims (1, 1, kSplit)
  const int kb0 = rank * KB / kSplit, kb1 = (rank + 1) * KB / kSplit;
  const int tile_stride = kSplit > 1 ? tiles : static_cast<int>(gridDim.x);  // split: one tile a cluster
  __syncthreads();

  if (wg == C::kConsumers) {
    setmaxnreg_dec<C::kProducerRegs>();
    const int pt = tid - C::kConsumers * 128;
    const int ch = pt & 7;
    int g = 0;  // k-blocks issued so far, over all tiles
    // The sorted ids of this thread's rows (every 16th from pt / 8) and the expert of a tile, loaded one
    // tile ahead: their latency passes while the current tile's k-blocks are issued.
    uint32_t ids[BM / 16];
    int e_next = 0;
    // The weights of k-block kb of expert e, columns from n0, into stage s (thread pt == 0 only).
    auto request_weights = [&](int s, int kb, int e, int n0) {
      const uint32_t dst = smem_at + s * C::kStageBytes + C::kABytes;
      mbar_expect_tx(&full[s], C::kBBytes);
      if constexpr (kS1) {
        // Per column warpgroup c: its WH gate rows, then their WH up partners (boxes of WH rows).
#pragma unroll
        for (int c = 0; c < C::kColGroups; ++c) {
          tma_load_2d(dst + c * WN * 128, &tmap_w, &full[s], kb * 128, e * 2 * I + n0 + c * WH);
          tma_load_2d(dst + (c * WN + WH) * 128, &tmap_w, &full[s], kb * 128, e * 2 * I + I + n0 + c * WH);
        }
      } else {
        tma_load_2d(dst, &tmap_w, &full[s], kb * 128, e * D + n0);
      }
    };
    // Where this thread's 16-byte chunk of each of its rows comes from (nullptr: padding), and its copies of them.
    auto row_sources = [&](const uint32_t(&id)[BM / 16], const uint8_t* (&src)[BM / 16]) {
#pragma unroll
      for (int i = 0; i < BM / 16; ++i) {
        const RowInfo ri = decode_id(a, id[i]);
        const size_t row = kS1 ? static_cast<size_t>(ri.token) : static_cast<size_t>(ri.token) * a.topk + ri.slot;
        src[i] = ri.token < 0 ? nullptr : (kS1 ? a.xq : a.aq) + row * K + ch * 16;
      }
    };
    auto put_rows = [&](int s, int kb, const uint8_t* const(&src)[BM / 16]) {
      const uint32_t dst = smem_at + s * C::kStageBytes;
#pragma unroll
      for (int i = 0; i < BM / 16; ++i) {
        const int r = (pt >> 3) + 16 * i;
        cp_async_16(dst + swz<128>(r, ch), src[i] ? src[i] + kb * 128 : a.xq, src[i] ? 16 : 0);
      }
    };
    // A stage 1 that routes itself (route_first_tile, which the first consumer warpgroup runs) takes its first tile's
    // expert and rows from shared memory and waits for the sorting only once that tile's k-blocks are issued.
    // (Waiting after the ring's first k-blocks, producer and consumers met the sorting's completion 2-3 us late, behind
    // the early requests in the memory system, and the stream began no earlier: docs/perf.md, 2026-11-30 08:48.)
    const int* scratch = reinterpret_cast<const int*>(smem + C::kOutOfs);
    bool waiting = false;  // for the sorting, until the first tile is issued
    if constexpr (route) {
      named_barrier_sync(6, C::kThreads);
      used_blocks = scratch[RouteScratch::kOwner + 1];
      tiles = used_blocks * col_tiles;
      waiting = true;
    }
    // Each role builds its own walk after its register count is set, so that the walk's divisors stay in
    // registers (built before the split, they were kept in local memory and reloaded every tile). Its divisors cost
    // three 64-bit divisions: stage 1 places its first tile without them (route_first_tile's column, or plain
    // division) and builds the walk once the ring's first k-blocks are asked for, off the path to its first data.
    auto walk_now = [&] { return TileWalk(used_blocks, col_tiles, col_group); };
    TileWalk tile_at = kS1 ? TileWalk(1, 1, 1) : walk_now();
    const TileAt first = !kS1 ? TileAt{0, 0}
                         : route ? TileAt{0, scratch[RouteScratch::kCol]}
                                 : TileWalk::place(static_cast<int>(blockIdx.x), used_blocks, col_tiles, col_group);
    auto fetch_block = [&](int block) {
      e_next = __ldg(a.sorted_expert_ids + block);
#pragma unroll
      for (int i = 0; i < BM / 16; ++i)
        ids[i] = static_cast<uint32_t>(__ldg(a.sorted_ids + block * BM + (pt >> 3) + 16 * i));
    };
    auto fetch = [&](int tile) {
      if (tile < tiles) fetch_block(tile_at(tile).block);
    };
    // Stage 2: the weights of the first ST k-blocks requested before the wait (their stages are free), and the first
    // tile's ids and expert (the sorting's, complete when stage 2 starts; see above): after the wait only the rows
    // stage 1 wrote are copied.
    int early = 0;
    if constexpr (!kS1) {
      if (pt == 0) {
        for (int tile = blockIdx.x; tile < tiles && early < ST; tile += tile_stride) {
          const TileAt at = tile_at(tile);
          const int e = __ldg(a.sorted_expert_ids + at.block);
          for (int kb = 0; kb < KB && early < ST; ++kb, ++early) request_weights(early, kb, e, at.col * TN);
        }
      }
      fetch(blockIdx.x);
      gpu::follow_previous_grid();
    } else if (waiting) {
      e_next = scratch[RouteScratch::kOwner];
#pragma unroll
      for (int i = 0; i < BM / 16; ++i)
        ids[i] = static_cast<uint32_t>(scratch[RouteScratch::kRows + (pt >> 3) + 16 * i]);
    } else if (static_cast<int>(blockIdx.x) < tiles) {
      fetch_block(first.block);
    }
    int claimed = 0;  // kDyn, thread pt == 0: the tile it claimed last (the one after the next)
    for (int tile = blockIdx.x, j = 0, next = 0; tile < tiles; tile = next, ++j) {
      const bool first_tile = kS1 && j == 0;  // placed without the walk, which is built during its first k-blocks
      const TileAt at = first_tile ? first : tile_at(tile);
      const int e = e_next;
      const int n0 = at.col * (kS1 ? HN : TN);
      const uint8_t* src[BM / 16];
      row_sources(ids, src);
      if constexpr (kDyn) {
        if (pt == 0) {
          next = j == 0 ? tile + tile_stride : claimed;
          st_shared_s32(tile_of_at + 4 * (j % Q), next);
          mbar_arrive_at(tile_full_at + 8 * (j % Q));
          if (next < tiles) claimed = 2 * static_cast<int>(gridDim.x) + atomicAdd(a.tile_counter, 1);
        }
        next = next_tile_of(j);
        fetch(next);
      } else {
        next = tile + tile_stride;
        if (!waiting && !first_tile) fetch(next);
      }
      const int fill_end = min(kb0 + ST, kb1) - 1;  // the last k-block of a first tile's first ring fill
      for (int kb = kb0; kb < kb1; ++kb, ++g) {
        const int s = g % ST;
        if (g >= ST) mbar_wait_at(empty_at + 8 * s, ((g / ST) + 1) & 1);
        if (pt == 0 && g >= early) request_weights(s, kb, e, n0);
        put_rows(s, kb, src);
        if (first_tile && kb == fill_end) {
          tile_at = walk_now();
          if (!waiting) fetch(next);
        }
        if constexpr (kSide) {
          if (kb == kb0) {
            // The tile's side area (WgCfg). Each row's KB activation scales are contiguous at a_scale[row * KB], and
            // (src + kb * 128 - aq) / 128 - kb = row * KB (src = aq + row * K + ch * 16, K = KB * 128): chunk ch < KB
            // copies float ch of each of its rows. (kb passes through an opaque move, so that the addresses are not
            // hoisted out of the k-block loop into registers the producer does not have.) Threads below 2 * KB copy
            // the weight scales (the tile's two blocks are contiguous in w2_scale).
            const uint32_t sd = side_at + s * C::kSideBytes;
            const int ko = opaque(kb);
            if (ch < KB) {
#pragma unroll
              for (int i = 0; i < BM / 16; ++i) {
                const float* xs = a.a_scale + ((src[i] + ko * 128 - a.aq) >> 7) - ko + ch;
                cp_async_4(sd + 16 * ((pt >> 3) + 16 * i) + 4 * ch, src[i] ? xs : a.a_scale, src[i] ? 4 : 0);
              }
            }
            if (pt < 2 * KB)
              cp_async_4(sd + C::kSideW + 16 * (pt / KB) + 4 * (pt % KB),
                         a.w2_scale + (static_cast<size_t>(e) * (D / 128) + n0 / 128) * KB + pt, 4);
          }
        }
        cp_async_mbar_arrive_noinc(&full[s]);  // one arrival once this thread's copies have landed
      }
      if (waiting) {
        gpu::follow_previous_grid();
        waiting = false;
        fetch(tile + tile_stride);
      }
    }
    if (waiting) gpu::follow_previous_grid();  // a CTA without a tile
    if constexpr (kDyn) {
      // The last CTA to get here leaves the counter as it found it: every CTA's claims come before its count (fence).
      if (pt == 0) {
        __threadfence();
        if (atomicAdd(a.tile_counter + 1, 1) == static_cast<int>(gridDim.x) - 1) {
          atomicExch(a.tile_counter, 0);
          atomicExch(a.tile_counter + 1, 0);
        }
      }
    }
    if constexpr (kSplit > 1) {
      // The producer takes part in the consumers' two cluster barriers (split_reduce_store).
      if (static_cast<int>(blockIdx.x) < tiles) {
        cooperative_groups::this_cluster().sync();
        cooperative_groups::this_cluster().sync();
      }
    }
    return;
  }
  setmaxnreg_inc<C::kConsumerRegs>();
  if constexpr (!kS1) gpu::follow_previous_grid();  // the re-quantised rows and their scales
  const TileWalk tile_at(used_blocks, col_tiles, col_group);  // stage 2's (stage 1 builds its own below)

  const int lane = tid & 31;
  const int wid = (tid % 128) / 32;
  const int rg = wg % C::kRowGroups, cg = wg / C::kRowGroups;  // this warpgroup's 64-row band and column group
  const int lr0 = rg * 64 + wid * 16 + (lane >> 2), lr1 = lr0 + 8;  // this thread's two rows of a tile
  int g = 0;
  // Stage sequence number gi is read: one arrival a warp on its empty barrier.
  auto free_stage = [&](int gi) {
    if (lane == 0) mbar_arrive_at(empty_at + 8 * (gi % ST));
  };
  // Wait for the next k-block's stage and issue its wgmma into dst (a fresh partial), not waited for.
  auto issue = [&](float(&dst)[WN / 2]) {
    const int s = g % ST;
    mbar_wait_at(full_at + 8 * s, (g / ST) & 1);
    fence_proxy_async_smem();  // the gathered rows were written by cp.async (generic proxy); wgmma reads async
    wgmma_block_k128<WN>(dst, smem_at + s * C::kStageBytes + rg * 64 * 128,
                         smem_at + s * C::kStageBytes + C::kABytes + cg * WN * 128);
    ++g;
  };
  // One 128-K block: issue it, wait for it, hand the stage back, promote with the scales (s: the gate
  // half's or all columns', u: the up half's).
  auto k_block = [&](float(&acc)[WN / 2], float(&t)[WN / 2], float s0, float s1, float u0, float u1) {
    const int s = g % ST;
    issue(t);
    wgmma_wait<0>();
    free_stage(s);
    fence_operands(t);
    // Stage 1: column groups j < WH/8 are gate columns, the rest their up partners (their own scales).
    promote_rows_split(acc, t, kS1 ? WH / 8 : WN / 8, s0, s1, u0, u1);
  };

  if constexpr (kS1) {
    // One tile: block `at`, expert e, the thread's two rows.
    auto run_tile = [&](const TileAt& at, int e, const RowInfo& ri0, const RowInfo& ri1) {
      // Gate rows n0.. and up rows I + n0.. of w1[e], columns n0.. of a: the tile's; this warpgroup's from nc.
      const int n0 = at.col * HN, nc = n0 + cg * WH;
      const bool ok0 = ri0.token >= 0, ok1 = ri1.token >= 0;
      // Activation scales of the thread's two rows; the gate half's and the up half's weight scales.
      const float* xs0 = a.x_scale + static_cast<size_t>(ok0 ? ri0.token : 0) * KB;
      const float* xs1 = a.x_scale + static_cast<size_t>(ok1 ? ri1.token : 0) * KB;
      const float* wsg = a.w1_scale + (static_cast<size_t>(e) * (2 * I / 128) + nc / 128) * KB;
      const float* wsu = a.w1_scale + (static_cast<size_t>(e) * (2 * I / 128) + (I + nc) / 128) * KB;
      float acc[WN / 2], t[WN / 2];
#pragma unroll
      for (int i = 0; i < WN / 2; ++i) acc[i] = 0.f;
      // k-block kb's four scales (row 0's and row 1's activation scale, the gate and the up weight scale),
      // requested with load_early so that they stay ahead of the waits written after them: ordinary read-only
      // loads were sunk past the stage's wait, and ncu of 2026-11-29 put 5.7% of stage 1's stall samples (4096
      // DeepSeek-V3 tokens) on the promotion waiting for them. A padding row's pointer is token 0's row: a valid
      // address, its value unused.
      auto raw = [&](int kb, float (&r)[4]) {
        r[0] = gpu::load_early(xs0 + kb), r[1] = gpu::load_early(xs1 + kb);
        r[2] = gpu::load_early(wsg + kb), r[3] = gpu::load_early(wsu + kb);
      };
      // Their promotion scales: gate half row 0, row 1, then up half row 0, row 1.
      auto products = [&](const float (&r)[4], float (&sc)[4]) {
        const float x0 = ok0 ? r[0] : 0.f, x1 = ok1 ? r[1] : 0.f;
        sc[0] = x0 * r[2], sc[1] = x1 * r[2], sc[2] = x0 * r[3], sc[3] = x1 * r[3];
      };
      if constexpr (C::kPairs) {
        // Block i's scales are loaded when it is issued (slot: which partial it went to), used when it retires.
        float r[2][4];
        float t2[WN / 2];
        const int g0 = g;
        wgmma_in_turns(
            kb1 - kb0, t, t2,
            [&](int i, float(&dst)[WN / 2], int slot) {
              raw(kb0 + i, r[slot]);
              issue(dst);
            },
            [&](int i, float(&src)[WN / 2], int slot) {
              free_stage(g0 + i);
              fence_operands(src);
              float sc[4];
              products(r[slot], sc);
              promote_rows_split(acc, src, WH / 8, sc[0], sc[1], sc[2], sc[3]);
            });
      } else {
        // k-block kb+1's scales are requested before kb's wait and multiplied when kb+1 is issued, a k-block later.
        // Two k-blocks an iteration, their scales in two sets of registers that take turns: with one set, the copy of
        // the next block's scales into it was placed before the wgmma wait and waited there for the load (ncu source
        // counters, 2026-11-29: a tenth of the consumers' samples at 4096 DeepSeek-V3 tokens).
        // The next k-block with its scales in cur, those of k-block kn requested into nxt.
        auto step = [&](const float(&cur)[4], float(&nxt)[4], int kn) {
          float sc[4];
          raw(kn, nxt);
          products(cur, sc);
          k_block(acc, t, sc[0], sc[1], sc[2], sc[3]);
        };
        float ra[4], rb[4];
        raw(kb0, ra);
        for (int kb = kb0; kb < kb1; kb += 2) {
          step(ra, rb, kb + 1 < kb1 ? kb + 1 : kb);
          if (kb + 1 >= kb1) break;
          step(rb, ra, kb + 2 < kb1 ? kb + 2 : kb + 1);
        }
      }
      if constexpr (kSplit > 1)
        split_reduce_store<C, kSplit>(a, acc, ri0, ri1, n0, smem, tid, rank);
      else if constexpr (kQuant)
        store_requantize_tile<C>(a, acc, ri0, ri1, nc, at.col, reinterpret_cast<float*>(smem + C::kXchOfs), lr0, cg,
                                 tid);
      else
        store_tile<C, kS1, kStaged, kAcc>(a, acc, ri0, ri1, nc, smem, tid);
    };
    // A stage 1 that routes itself takes its first tile from route_first_tile's results in shared memory (a row's
    // routed weight from topk_weights, as the sorting would have copied it), and its later tiles from the sorting's
    // outputs once it has waited for the sorting. One loop, so that the tile's code exists once.
    const int* scratch = reinterpret_cast<const int*>(smem + C::kOutOfs);
    bool waiting = false;  // for the sorting, until the first tile is done
    if constexpr (route) {
      if (wg == 0)
        route_first_tile<BM>(a, reinterpret_cast<int*>(smem + C::kOutOfs), tid, col_tiles, col_group, blockIdx.x);
      named_barrier_sync(6, C::kThreads);
      used_blocks = scratch[RouteScratch::kOwner + 1];
      tiles = used_blocks * col_tiles;
      waiting = true;
    }
    const TileWalk walk(used_blocks, col_tiles, col_group);
    auto routed = [&](int r) {
      RowInfo ri = decode_id(a, static_cast<uint32_t>(scratch[RouteScratch::kRows + r]));
      if (ri.token >= 0) ri.weight = __ldg(a.topk_weights + ri.token * a.topk + ri.slot);
      return ri;
    };
    for (int tile = blockIdx.x; tile < tiles; tile += tile_stride) {
      const TileAt at = walk(tile);
      const int block = at.block;
      const int e = waiting ? scratch[RouteScratch::kOwner] : __ldg(a.sorted_expert_ids + block);
      const RowInfo ri0 = waiting ? routed(lr0) : row_info(a, block * BM + lr0);
      const RowInfo ri1 = waiting ? routed(lr1) : row_info(a, block * BM + lr1);
      run_tile(at, e, ri0, ri1);
      if (waiting) {
        gpu::follow_previous_grid();
        waiting = false;
      }
    }
    if (waiting) gpu::follow_previous_grid();  // a CTA without a tile
  } else {
    // Stage 2 has 2..4 k-blocks a tile, so a tile that began with its chain of dependent loads (sorted
    // id -> token -> activation scale; block -> expert -> weight scale) spent a large part of its life
    // waiting on them. They are gathered one tile ahead instead, in two steps: the next tile's ids,
    // routed weights and expert when this tile starts; its scales, which need those, after this tile's
    // k-blocks, so both arrive while this tile computes and stores. Nothing in the fetches uses a
    // loaded value (that would wait for the load), only the next tile's promotions do.
    //
    // A tile's first two k-blocks are in flight together (block 0 straight into acc, block 1 into t), so
    // the warpgroup waits once for the tensor cores where it waited twice, and acc needs no zeroing
    // (H200, DeepSeek-V3 TP8, three alternating tunes: 4096 tokens 769 -> 750 us, 16384 tokens 2591 ->
    // 2572 us, 16..1024 tokens 0.1-0.7% faster).
    //
    // Measured and left out (H200, 2026-11-24): the next tile's first k-block issued before this tile's
    // stores, so that the tensor cores would not wait for them (stores moved to the start of the next
    // iteration, so that no wgmma is in flight across the loop's back edge or an unrolled loop's exit,
    // where ptxas would wait for it: C7517) — stage 2 9% slower (ncu 1.17 against 1.07 ms at 16384
    // DeepSeek-V3 tokens); and the routed weight folded into the promotion scales (a multiply a k-block
    // instead of one an output) — not faster.
    constexpr int kMaxKB = 4;  // K = inter_dim <= 512 (why_not)
    if constexpr (C::kHalves > 1) {
      // The thread's two rows of a tile and their routed weights, loaded a tile ahead (they are needed by its stores).
      struct Rows {
        uint32_t id0, id1;
        float w0, w1;
      };
      auto fetch_rows = [&](int tile, Rows& n) {
        const int block = tile_at(tile).block;
        n.id0 = static_cast<uint32_t>(__ldg(a.sorted_ids + block * BM + lr0));
        n.id1 = static_cast<uint32_t>(__ldg(a.sorted_ids + block * BM + lr1));
        n.w0 = __ldg(a.sorted_weights + block * BM + lr0);  // read for padding rows too, never used there
        n.w1 = __ldg(a.sorted_weights + block * BM + lr1);
      };
      // The tile's promotion scales, row 0's and row 1's per k-block, for its 128-column block j: from the side area of
      // the stage holding its first k-block (ring position gi), after that stage's full barrier and before it is handed
      // back. A padding row's activation scales are 0 (the producer's zero fill).
      auto scales_of = [&](int gi, int j, float (&s0)[kMaxKB], float (&s1)[kMaxKB]) {
        const uint32_t sd = side_at + (gi % ST) * C::kSideBytes;
        const float4 x0 = ld_shared_f32x4(sd + 16 * lr0), x1 = ld_shared_f32x4(sd + 16 * lr1);
        const float4 w = ld_shared_f32x4(sd + C::kSideW + 16 * j);
        s0[0] = x0.x * w.x, s0[1] = x0.y * w.y, s0[2] = x0.z * w.z, s0[3] = x0.w * w.w;
        s1[0] = x1.x * w.x, s1[1] = x1.y * w.y, s1[2] = x1.z * w.z, s1[3] = x1.w * w.w;
      };
      // Two halves of 128 columns a tile, one after the other, on the same registers; both read each stage's
      // gathered rows, which therefore cross L2 once for 256 columns. A stage is waited for by the first half and
      // handed back by the second, so the first half reads both halves' scales.
      auto issue_half = [&](float(&dst)[WN / 2], int gi, int h) {
        const int s = gi % ST;
        if (h == 0) mbar_wait_at(full_at + 8 * s, (gi / ST) & 1);
        fence_proxy_async_smem();
        wgmma_block_k128<WN>(dst, smem_at + s * C::kStageBytes + wg * 64 * 128,
                             smem_at + s * C::kStageBytes + C::kABytes + h * WN * 128);
      };
      auto release = [&](int gi, int h) {
        if (h == C::kHalves - 1) free_stage(gi);
      };
      Rows next{};
      if (static_cast<int>(blockIdx.x) < tiles) fetch_rows(blockIdx.x, next);
      for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int n0 = tile_at(tile).col * TN;
        const int g0 = g;
        RowInfo ri0 = decode_id(a, next.id0), ri1 = decode_id(a, next.id1);
        ri0.weight = next.w0, ri1.weight = next.w1;
        if (tile + static_cast<int>(gridDim.x) < tiles) fetch_rows(tile + gridDim.x, next);
        float p0[C::kHalves][kMaxKB], p1[C::kHalves][kMaxKB];
#pragma unroll
        for (int h = 0; h < C::kHalves; ++h) {
          float acc[WN / 2], t[WN / 2];
          issue_half(acc, g0, h);
          issue_half(t, g0 + 1, h);
          if (h == 0) {
#pragma unroll
            for (int j = 0; j < C::kHalves; ++j) scales_of(g0, j, p0[j], p1[j]);
          }
          wgmma_wait<1>();
          release(g0, h);
          fence_operands(acc);
          scale_rows(acc, p0[h][0], p1[h][0]);
          wgmma_wait<0>();
          release(g0 + 1, h);
          fence_operands(t);
          promote_rows(acc, t, p0[h][1], p1[h][1]);
#pragma unroll
          for (int kb = 2; kb < kMaxKB; ++kb) {
            if (kb >= KB) break;
            issue_half(t, g0 + kb, h);
            wgmma_wait<0>();
            release(g0 + kb, h);
            fence_operands(t);
            promote_rows(acc, t, p0[h][kb], p1[h][kb]);
          }
          store_tile<C, kS1, kStaged, kAcc>(a, acc, ri0, ri1, n0 + h * WN, smem, tid);
        }
        g = g0 + KB;
      }
    } else {
      // One half: the tile's ids, routed weights and expert are loaded when the previous tile starts, its scales after
      // the previous tile's k-blocks.
      struct Ids {
        int n0, e;
        uint32_t id0, id1;
        float w0, w1;
      };
      struct Scales {
        RowInfo ri0, ri1;
        float x0[kMaxKB], x1[kMaxKB], w[kMaxKB];
      };
      auto fetch_ids = [&](int tile, Ids& n) {
        const TileAt at = tile_at(tile);
        n.n0 = at.col * TN;
        n.e = __ldg(a.sorted_expert_ids + at.block);
        n.id0 = static_cast<uint32_t>(__ldg(a.sorted_ids + at.block * BM + lr0));
        n.id1 = static_cast<uint32_t>(__ldg(a.sorted_ids + at.block * BM + lr1));
        n.w0 = __ldg(a.sorted_weights + at.block * BM + lr0);  // read for padding rows too, never used there
        n.w1 = __ldg(a.sorted_weights + at.block * BM + lr1);
      };
      auto fetch_scales = [&](const Ids& n, Scales& sc) {
        sc.ri0 = decode_id(a, n.id0);
        sc.ri1 = decode_id(a, n.id1);
        const bool ok0 = sc.ri0.token >= 0, ok1 = sc.ri1.token >= 0;
        sc.ri0.weight = n.w0;
        sc.ri1.weight = n.w1;
        const float* xs0 = a.a_scale + (static_cast<size_t>(ok0 ? sc.ri0.token : 0) * a.topk + sc.ri0.slot) * KB;
        const float* xs1 = a.a_scale + (static_cast<size_t>(ok1 ? sc.ri1.token : 0) * a.topk + sc.ri1.slot) * KB;
        // This warpgroup's 128 columns: from n0, or (two column warpgroups) the second 128 of the tile's 256.
        const float* ws = a.w2_scale + (static_cast<size_t>(n.e) * (D / 128) + (n.n0 + cg * WN) / 128) * KB;
#pragma unroll
        for (int kb = 0; kb < kMaxKB; ++kb) {
          if (kb >= KB) break;
          sc.x0[kb] = ok0 ? __ldg(xs0 + kb) : 0.f;
          sc.x1[kb] = ok1 ? __ldg(xs1 + kb) : 0.f;
          sc.w[kb] = __ldg(ws + kb);
        }
      };
      Ids next{};
      Scales sc{};
      if (static_cast<int>(blockIdx.x) < tiles) {
        fetch_ids(blockIdx.x, next);
        fetch_scales(next, sc);
      }
      for (int tile = blockIdx.x, j = 0; tile < tiles; ++j) {
        const int n0 = next.n0 + cg * WN;  // rows n0.. of w2[e], columns n0.. of the output (this warpgroup's)
        int nt;
        if constexpr (kDyn)
          nt = next_tile_of(j);
        else
          nt = tile + static_cast<int>(gridDim.x);
        const bool more = nt < tiles;
        if (more) fetch_ids(nt, next);
        float acc[WN / 2], t[WN / 2];
        // k-blocks 0 and 1 in flight together, block 0 straight into acc and block 1 into t: acc is
        // scaled while block 1 runs, then block 1 (and any further block, one at a time) promoted into it.
        const int g0 = g;
        issue(acc);
        issue(t);
        wgmma_wait<1>();
        free_stage(g0);
        fence_operands(acc);
        scale_rows(acc, sc.x0[0] * sc.w[0], sc.x1[0] * sc.w[0]);
        wgmma_wait<0>();
        free_stage(g0 + 1);
        fence_operands(t);
        promote_rows(acc, t, sc.x0[1] * sc.w[1], sc.x1[1] * sc.w[1]);
#pragma unroll
        for (int kb = 2; kb < kMaxKB; ++kb) {
          if (kb >= KB) break;
          const float s0 = sc.x0[kb] * sc.w[kb], s1 = sc.x1[kb] * sc.w[kb];
          k_block(acc, t, s0, s1, s0, s1);
        }
        const RowInfo ri0 = sc.ri0, ri1 = sc.ri1;
        if (more) fetch_scales(next, sc);
        store_tile<C, kS1, kStaged, kAcc>(a, acc, ri0, ri1, n0, smem, tid);
        tile = nt;
      }
    }
  }
#endif
}

#endif  // CKTUNE_CUDA

}  // namespace cktune::kernels::moe_2stages::detail
