#pragma once
// Kernel bodies of the two MoE stages, on the 16x8x32 fp8 warp MMA (sm_89+).
//
// Both stages compute Y^T = W * A^T per sorted block: the expert's weight rows sit on the MMA's
// 16-row side and the block's gathered activation rows on its 8-wide side, so a decode block with a
// single real token wastes the narrow side, and the weights, which are the bytes that matter, stream
// through the wide side. Scales are applied once per 128-K block: a fresh fp32 partial per block is
// multiplied by the row's activation scale and the tile's weight scale and added to the accumulator.
//
// Stage 1: a CTA owns tile_n weight rows: tile_n/2 gate rows and the tile_n/2 up rows that pair with
// them, so SiLU gating happens in the CTA. Split-K: the S CTAs of a tile form a thread-block cluster
// (1 x 1 x S); each parks its fp32 tile in shared memory and CTA rank r reduces its share of the
// tile's outputs over q = 0..S-1 in that fixed order (no workspace, no atomics, deterministic).
// Between the stages, quantize_a_kernel re-quantises stage 1's bf16 output per 1x128 (AITER's stage-1
// output format for a blockscale stage 2). Stage 2: a CTA owns tile_n output columns of one block,
// and stores its rows, times the routed weight, as bf16 into the per-slot buffer y[token*topk + slot]
// with plain vector stores. A reduction kernel then sums each token's topk rows in fp32, in slot order,
// into the bf16 output: no atomics, a fixed order, deterministic. (An earlier version added into an fp32
// accumulator with float4 atomics; it was not slower, 8.68 vs 8.63 ms for stage 2 at 16384 tokens with
// the same tiles, but its sum had no fixed order.)
#include <cstdint>

#include "../common/arch_sm90.hpp"
#include "../common/numeric.hpp"
#include "moe_2stages.hpp"
#include "stage_math.cuh"

#if defined(CKTUNE_CUDA)
#include <cooperative_groups.h>
#include <cuda_fp8.h>
#endif

namespace cktune::kernels::moe_2stages::detail {

// TN = weight rows per CTA, BM = sorted rows per CTA (= block_m), WN x WM warps, ST pipeline stages.
template <int TN, int BM, int WN, int WM, int ST>
struct Cfg {
  static constexpr int kTN = TN, kBM = BM, kWN = WN, kWM = WM, kStages = ST;
  static constexpr int kWarps = WN * WM;
  static constexpr int kThreads = kWarps * 32;
  static constexpr int kWarpN = TN / WN;  // weight rows per warp
  static constexpr int kWarpM = BM / WM;  // activation rows per warp
  static constexpr int kMI = kWarpN / 16;
  static constexpr int kNJ = kWarpM / 8;
  // Stage 1 pipeline stage: weight tile, activation tile, BM activation scales, 2 weight scales.
  static constexpr int kScaleOfs = (TN + BM) * 128;
  static constexpr int kStageBytes = (kScaleOfs + (BM + 2) * 4 + 127) / 128 * 128;
  static constexpr int kPipeBytes = kStageBytes * ST;
  static constexpr int kTileBytes = TN * BM * 4;  // the fp32 tile parked for the epilogue
  static constexpr int kRowInfoBytes = BM * 16;   // per row: token, slot, weight
  static constexpr int kSmem1 = (kPipeBytes > kTileBytes ? kPipeBytes : kTileBytes) + kRowInfoBytes;
  static_assert(kWarpN % 16 == 0 && kWarpM % 8 == 0, "warp tile must be whole MMA tiles");
  static_assert(kNJ == 1 || kNJ % 2 == 0, "activation fragments are loaded in pairs");
};

struct RowInfo {
  int token;   // -1 for a padding row
  int slot;
  float weight;
  int pad;
};

// A packed sorted id as a row: token (-1 for padding) and slot; no routed weight.
__device__ __forceinline__ RowInfo decode_id(const Args& a, uint32_t id) {
  RowInfo ri;
  ri.token = static_cast<int>(id & 0xffffffu);
  if (ri.token >= a.tokens) ri.token = -1;
  ri.slot = static_cast<int>(id >> 24);
  ri.weight = 0.f;
  ri.pad = 0;
  return ri;
}

// The sorted entry `idx` as a row of a block: token (-1 for padding), slot, routed weight.
__device__ __forceinline__ RowInfo row_info(const Args& a, int idx) {
  RowInfo ri = decode_id(a, static_cast<uint32_t>(a.sorted_ids[idx]));
  if (ri.token >= 0) ri.weight = a.sorted_weights[idx];
  return ri;
}

// The block's rows into shared memory.
template <int BM>
__device__ __forceinline__ void load_rows(const Args& a, int block, RowInfo* rows) {
  for (int r = threadIdx.x; r < BM; r += blockDim.x) rows[r] = row_info(a, block * BM + r);
}

#if defined(CKTUNE_CUDA)
// The block's re-quantised stage-1 rows aq[token*topk + slot] of k-block kb, gathered into a
// 128-byte-swizzled [BM][128] fp8 tile at `dst` (padding rows: zeros), by NT threads (tid < NT): each
// copies one 16-byte chunk of every NT/8-th row.
template <int BM, int NT>
__device__ __forceinline__ void gather_rows(const RowInfo* rows, const uint8_t* aq, int K, int kb, int topk,
                                            uint32_t dst, int tid) {
  using namespace cktune::gpu::sm90;
  static_assert(NT % 8 == 0, "whole rows of 8 chunks");
  const int ch = tid & 7;
  for (int r = tid >> 3; r < BM; r += NT / 8) {
    const RowInfo ri = rows[r];
    const size_t src = ri.token < 0 ? 0 : static_cast<size_t>(ri.token) * topk + ri.slot;
    cp_async_16(dst + swz<128>(r, ch), aq + src * K + kb * 128 + ch * 16, ri.token >= 0 ? 16 : 0);
  }
}
#endif

// One warp's MMA over one 128-K block held in shared memory: W tile rows [TN][128], A rows [BM][128].
template <class C>
__device__ __forceinline__ void mma_block(uint32_t sw, uint32_t sa, int wn, int wm, int lane,
                                          float (&tmp)[C::kMI][C::kNJ][4]) {
#if defined(CKTUNE_CUDA)  // the NVIDIA inner loop; the AMD instances report not supported
  using namespace cktune::gpu::sm90;
  constexpr int MI = C::kMI, NJ = C::kNJ;
#pragma unroll
  for (int ks = 0; ks < 4; ++ks) {
    uint32_t af[MI][4];
#pragma unroll
    for (int i = 0; i < MI; ++i) load_a_frag(sw, wn * C::kWarpN + i * 16, ks, lane, af[i]);
    uint32_t bf[NJ][2];
    if constexpr (NJ == 1) {
      const int row = wm * C::kWarpM + (lane & 7);
      ldmatrix_x2(sa + swz<128>(row, 2 * ks + ((lane >> 3) & 1)), bf[0][0], bf[0][1]);
    } else {
#pragma unroll
      for (int jp = 0; jp < NJ / 2; ++jp) {
        const int q = lane >> 3;
        const int row = wm * C::kWarpM + (2 * jp + (q >> 1)) * 8 + (lane & 7);
        ldmatrix_x4(sa + swz<128>(row, 2 * ks + (q & 1)), bf[2 * jp][0], bf[2 * jp][1], bf[2 * jp + 1][0],
                    bf[2 * jp + 1][1]);
      }
    }
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
      for (int j = 0; j < NJ; ++j) mma_e4m3_16832(tmp[i][j], af[i], bf[j][0], bf[j][1]);
  }
#endif
}

template <class C>
__device__ __forceinline__ void zero(float (&x)[C::kMI][C::kNJ][4]) {
#pragma unroll
  for (int i = 0; i < C::kMI; ++i)
#pragma unroll
    for (int j = 0; j < C::kNJ; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) x[i][j][r] = 0.f;
}

// acc += tmp * (a_scale[row] * w_scale); tmp := 0. `ascale` is indexed by the block row.
template <class C>
__device__ __forceinline__ void promote(float (&acc)[C::kMI][C::kNJ][4], float (&tmp)[C::kMI][C::kNJ][4],
                                        const float* ascale, float wscale, int wm, int lane) {
  const int t4 = lane & 3;
#pragma unroll
  for (int j = 0; j < C::kNJ; ++j) {
    const int ml = wm * C::kWarpM + j * 8 + t4 * 2;
    const float s0 = ascale[ml] * wscale, s1 = ascale[ml + 1] * wscale;
#pragma unroll
    for (int i = 0; i < C::kMI; ++i) {
      acc[i][j][0] = fmaf(tmp[i][j][0], s0, acc[i][j][0]);
      acc[i][j][1] = fmaf(tmp[i][j][1], s1, acc[i][j][1]);
      acc[i][j][2] = fmaf(tmp[i][j][2], s0, acc[i][j][2]);
      acc[i][j][3] = fmaf(tmp[i][j][3], s1, acc[i][j][3]);
      tmp[i][j][0] = tmp[i][j][1] = tmp[i][j][2] = tmp[i][j][3] = 0.f;
    }
  }
}

// Park the warp's accumulator in shared memory as tile[m][n] (n = weight row within the CTA).
template <class C>
__device__ __forceinline__ void park(float* tile, const float (&acc)[C::kMI][C::kNJ][4], int wn, int wm, int lane) {
  const int g4 = lane >> 2, t4 = lane & 3;
#pragma unroll
  for (int i = 0; i < C::kMI; ++i)
#pragma unroll
    for (int j = 0; j < C::kNJ; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int nl = wn * C::kWarpN + i * 16 + g4 + (r >> 1) * 8;
        const int ml = wm * C::kWarpM + j * 8 + t4 * 2 + (r & 1);
        tile[ml * C::kTN + nl] = acc[i][j][r];
      }
}

template <class C>
__global__ void __launch_bounds__(C::kThreads) stage1_kernel(const Args a, int S) {
#if defined(CKTUNE_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  using namespace cktune::gpu::sm90;
  extern __shared__ __align__(128) uint8_t smem[];
  constexpr int TN = C::kTN, BM = C::kBM, HN = TN / 2, ST = C::kStages, T = C::kThreads;
  gpu::follow_previous_grid();
  const int block = blockIdx.y;
  if (block * BM >= a.num_valid_ids[0]) return;  // every CTA of a cluster sees the same block
  const int e = a.sorted_expert_ids[block];
  RowInfo* rows = reinterpret_cast<RowInfo*>(smem + (C::kPipeBytes > C::kTileBytes ? C::kPipeBytes : C::kTileBytes));
  load_rows<BM>(a, block, rows);
  __syncthreads();

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wn = warp % C::kWN, wm = warp / C::kWN;
  const int D = a.model_dim, I = a.inter_dim, KB = D / 128;
  const int n0 = blockIdx.x * HN;  // first column of `a` this CTA produces
  const int z = blockIdx.z;
  const int kb_begin = z * KB / S, kb_end = (z + 1) * KB / S, nkb = kb_end - kb_begin;
  const uint8_t* w_e = a.w1q + static_cast<size_t>(e) * 2 * I * D;
  const float* ws_e = a.w1_scale + static_cast<size_t>(e) * (2 * I / 128) * KB;
  const int gate_srow = n0 / 128, up_srow = (I + n0) / 128;

  auto stage_ptr = [&](int s) { return smem + s * C::kStageBytes; };
  auto load_stage = [&](int s, int t) {
    const uint32_t sw = smem_u32(stage_ptr(s));
    const uint32_t sa = sw + TN * 128;
    const uint32_t ss = sw + C::kScaleOfs;
    const int kb = kb_begin + t;
    const size_t kofs = static_cast<size_t>(kb) * 128;
#pragma unroll
    for (int c = tid; c < TN * 8; c += T) {
      const int row = c >> 3, ch = c & 7;
      const int wrow = row < HN ? n0 + row : I + n0 + (row - HN);
      cp_async_16(sw + swz<128>(row, ch), w_e + static_cast<size_t>(wrow) * D + kofs + ch * 16, 16);
    }
#pragma unroll
    for (int c = tid; c < BM * 8; c += T) {
      const int row = c >> 3, ch = c & 7;
      const int tok = rows[row].token;
      const uint8_t* src = a.xq + static_cast<size_t>(tok >= 0 ? tok : 0) * D + kofs + ch * 16;
      cp_async_16(sa + swz<128>(row, ch), src, tok >= 0 ? 16 : 0);
    }
    for (int r = tid; r < BM; r += T) {
      const int tok = rows[r].token;
      cp_async_4(ss + r * 4, a.x_scale + static_cast<size_t>(tok >= 0 ? tok : 0) * KB + kb, tok >= 0 ? 4 : 0);
    }
    if (tid == T - 1) cp_async_4(ss + BM * 4, ws_e + static_cast<size_t>(gate_srow) * KB + kb, 4);
    if (tid == T - 2) cp_async_4(ss + (BM + 1) * 4, ws_e + static_cast<size_t>(up_srow) * KB + kb, 4);
  };

  float acc[C::kMI][C::kNJ][4], tmp[C::kMI][C::kNJ][4];
  zero<C>(acc);
  zero<C>(tmp);

#pragma unroll
  for (int s = 0; s < ST - 1; ++s) {
    if (s < nkb) load_stage(s, s);
    cp_async_commit();
  }
  // Warps hold either gate or up rows (the warp tile never straddles the two halves).
  static_assert(HN % C::kWarpN == 0, "a warp's rows must be all gate or all up rows");
  const bool up_warp = wn * C::kWarpN >= HN;
  for (int it = 0; it < nkb; ++it) {
    cp_async_wait<ST - 2>();
    __syncthreads();
    {
      const int nxt = it + ST - 1;
      if (nxt < nkb) load_stage(nxt % ST, nxt);
      cp_async_commit();
    }
    uint8_t* base = stage_ptr(it % ST);
    const uint32_t sw = smem_u32(base);
    mma_block<C>(sw, sw + TN * 128, wn, wm, lane, tmp);
    const float* ss = reinterpret_cast<const float*>(base + C::kScaleOfs);
    promote<C>(acc, tmp, ss, ss[BM + (up_warp ? 1 : 0)], wm, lane);
  }
  cp_async_wait<0>();
  __syncthreads();  // pipeline buffers are free: the tile goes there
  float* tile = reinterpret_cast<float*>(smem);
  park<C>(tile, acc, wn, wm, lane);

  // Reduce over the S CTAs of the cluster (S = 1: this CTA alone) and gate: a = silu(g) * u.
  constexpr int OUT = BM * HN;
  auto epilogue = [&](auto&& tile_of, int rank) {
    const int o0 = rank * OUT / S, o1 = (rank + 1) * OUT / S;
    for (int o = o0 + tid; o < o1; o += T) {
      const int ml = o / HN, nl = o % HN;
      const RowInfo ri = rows[ml];
      if (ri.token < 0) continue;
      float g = 0.f, u = 0.f;
      for (int q = 0; q < S; ++q) {
        const float* tq = tile_of(q);
        g += tq[ml * TN + nl];
        u += tq[ml * TN + HN + nl];
      }
      float v = silu(g) * u;
      if (a.doweight_stage1) v *= ri.weight;
      a.a[(static_cast<size_t>(ri.token) * a.topk + ri.slot) * I + n0 + nl] = gpu::f32_to_bf16_bits(v);
    }
  };
  if (S == 1) {
    __syncthreads();
    epilogue([&](int) { return static_cast<const float*>(tile); }, 0);
    return;
  }
#if defined(CKTUNE_CUDA)
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  cluster.sync();
  epilogue([&](int q) { return static_cast<const float*>(cluster.map_shared_rank(tile, q)); },
           static_cast<int>(cluster.block_rank()));
  cluster.sync();  // keep every CTA's tile alive until the others have read it
#endif
#endif
}

// Stage-2 configuration: TN output columns, BM rows, the whole K = inter in shared memory.
template <class C>
constexpr int stage2_smem(int inter) {
  return C::kTN * inter + C::kBM * inter + C::kBM * (inter / 128) * 4 + C::kRowInfoBytes + 256;
}

// kAcc: each routed row, times its weight, is added into its token's output row (16-byte bf16 atomic
// adds, sm_90; the sorting zeroed the output) instead of written to its slot's row for reduce_slots: no
// per-slot rows and one launch fewer (at 1 DeepSeek-V3 token the reduction was 4.5 of 32 us).
template <class C, int KBI, bool kAcc>
__global__ void __launch_bounds__(C::kThreads) stage2_kernel(const Args a) {
#if defined(CKTUNE_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  using namespace cktune::gpu::sm90;
  extern __shared__ __align__(128) uint8_t smem[];
  constexpr int TN = C::kTN, BM = C::kBM, T = C::kThreads, I = KBI * 128;
  gpu::follow_previous_grid();
  const int block = blockIdx.y;
  if (block * BM >= a.num_valid_ids[0]) return;
  const int e = a.sorted_expert_ids[block];
  const int D = a.model_dim;
  const int n0 = blockIdx.x * TN;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wn = warp % C::kWN, wm = warp / C::kWN;

  // Layout: per k-block kb: W tile [TN][128] then A tile [BM][128]; then A scales [KBI][BM]; rows.
  constexpr int kKbBytes = (TN + BM) * 128;
  float* ascale = reinterpret_cast<float*>(smem + KBI * kKbBytes);
  RowInfo* rows = reinterpret_cast<RowInfo*>(smem + KBI * kKbBytes + KBI * BM * 4);
  const uint32_t s0 = smem_u32(smem);

  // 1. Weights first (the long-latency bytes), one commit group per k-block.
  const uint8_t* w_e = a.w2q + static_cast<size_t>(e) * D * I;
#pragma unroll
  for (int kb = 0; kb < KBI; ++kb) {
#pragma unroll
    for (int c = tid; c < TN * 8; c += T) {
      const int row = c >> 3, ch = c & 7;
      cp_async_16(s0 + kb * kKbBytes + swz<128>(row, ch), w_e + static_cast<size_t>(n0 + row) * I + kb * 128 + ch * 16,
                  16);
    }
    cp_async_commit();
  }
  load_rows<BM>(a, block, rows);
  __syncthreads();

  // 2. The block's re-quantised stage-1 rows (quantize_a_kernel) and their scales, gathered through the
  //    sorted ids; padding rows load as zeros with zero scales.
#pragma unroll
  for (int kb = 0; kb < KBI; ++kb) gather_rows<BM, T>(rows, a.aq, I, kb, a.topk, s0 + kb * kKbBytes + TN * 128, tid);
  for (int c = tid; c < BM * KBI; c += T) {
    const int kb = c / BM, r = c % BM;
    const RowInfo ri = rows[r];
    const size_t row = ri.token >= 0 ? static_cast<size_t>(ri.token) * a.topk + ri.slot : 0;
    cp_async_4(smem_u32(ascale + kb * BM + r), a.a_scale + row * KBI + kb, ri.token >= 0 ? 4 : 0);
  }
  cp_async_commit();

  float acc[C::kMI][C::kNJ][4], tmp[C::kMI][C::kNJ][4];
  zero<C>(acc);
  zero<C>(tmp);

  const float* ws_e = a.w2_scale + static_cast<size_t>(e) * (D / 128) * KBI + static_cast<size_t>(n0 / 128) * KBI;
  cp_async_wait<0>();
  __syncthreads();
#pragma unroll
  for (int kb = 0; kb < KBI; ++kb) {
    const uint32_t sw = s0 + kb * kKbBytes;
    mma_block<C>(sw, sw + TN * 128, wn, wm, lane, tmp);
    promote<C>(acc, tmp, ascale + kb * BM, __ldg(ws_e + kb), wm, lane);
  }
  __syncthreads();
  float* tile = reinterpret_cast<float*>(smem);  // [BM][TN]; fits in the first k-block's bytes? see launch
  park<C>(tile, acc, wn, wm, lane);
  __syncthreads();
  // 3. y[token*topk + slot, n0 .. n0+TN) = bf16(w * tile[row]): 8 columns a thread, 16-byte stores (kAcc:
  //    out[token, n0 .. n0+TN) += the same, 16-byte adds).
  constexpr int V = TN / 8;
  for (int o = tid; o < BM * V; o += T) {
    const int ml = o / V, c = (o % V) * 8;
    const RowInfo ri = rows[ml];
    if (ri.token < 0) continue;
    const float w = a.doweight_stage1 ? 1.0f : ri.weight;
    const float4 v0 = *reinterpret_cast<const float4*>(tile + ml * TN + c);
    const float4 v1 = *reinterpret_cast<const float4*>(tile + ml * TN + c + 4);
    uint4 packed;
    packed.x = gpu::pack_bf16x2(v0.x * w, v0.y * w);
    packed.y = gpu::pack_bf16x2(v0.z * w, v0.w * w);
    packed.z = gpu::pack_bf16x2(v1.x * w, v1.y * w);
    packed.w = gpu::pack_bf16x2(v1.z * w, v1.w * w);
    if constexpr (kAcc) {
#if __CUDA_ARCH__ >= 900
      red_add_bf16x8(a.out + static_cast<size_t>(ri.token) * D + n0 + c, packed);
#endif
    } else {
      *reinterpret_cast<uint4*>(a.y_slots + (static_cast<size_t>(ri.token) * a.topk + ri.slot) * D + n0 + c) = packed;
    }
  }
#endif
}

// Stage 1's output re-quantised per 1x128 for stage 2, as AITER does: scale = amax/448, round to nearest
// even, saturating. One warp per (row, 128-column block), 4 values a lane; rows = tokens*topk.
__global__ void quantize_a_kernel(const uint16_t* __restrict__ a, uint8_t* __restrict__ aq,
                                  float* __restrict__ a_scale, int rows, int inter) {
#if defined(CKTUNE_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  // Stage 2 may be scheduled as soon as every block of this kernel has started: a wgmma stage 2 then
  // requests its first weights while stage 1 ends (its blocks take the SMs stage 1 leaves) and waits
  // for this kernel before it reads the rows. Three kernels are then in flight, but each waits only for
  // the one before it, and that one's blocks have all started, so none waits for an SM it cannot get.
  gpu::open_next_grid();
  gpu::await_previous_grid();
  const int lane = threadIdx.x & 31;
  const int kbs = inter / 128;
  const long long jobs = static_cast<long long>(rows) * kbs;
  for (long long job = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / 32; job < jobs;
       job += static_cast<long long>(gridDim.x) * blockDim.x / 32) {
    const size_t r = static_cast<size_t>(job / kbs), kb = static_cast<size_t>(job % kbs);
    const uint2 raw = *reinterpret_cast<const uint2*>(a + r * inter + kb * 128 + lane * 4);
    float v[4] = {gpu::bf16_bits_to_f32(static_cast<uint16_t>(raw.x & 0xffffu)),
                  gpu::bf16_bits_to_f32(static_cast<uint16_t>(raw.x >> 16)),
                  gpu::bf16_bits_to_f32(static_cast<uint16_t>(raw.y & 0xffffu)),
                  gpu::bf16_bits_to_f32(static_cast<uint16_t>(raw.y >> 16))};
    float scale;
    *reinterpret_cast<uint32_t*>(aq + r * inter + kb * 128 + lane * 4) = quantize_1x128(v, scale);
    if (lane == 0) a_scale[r * kbs + kb] = scale;
  }
#endif
}

// out[t, :] = bf16(sum over slots k = 0..topk-1 of y[t*topk + k, :]), fp32 sum in slot order.
__global__ void reduce_slots_kernel(const uint16_t* __restrict__ y, uint16_t* __restrict__ out, int tokens, int topk,
                                    int model_dim) {
  gpu::follow_previous_grid();
  const size_t per_row = static_cast<size_t>(model_dim) / 8;  // 8 bf16 a thread
  const size_t total = static_cast<size_t>(tokens) * per_row;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const size_t t = i / per_row, c = (i % per_row) * 8;
    float s[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
    for (int k = 0; k < topk; ++k) add_bf16x8(s, *reinterpret_cast<const uint4*>(y + (t * topk + k) * model_dim + c));
    *reinterpret_cast<uint4*>(out + t * model_dim + c) = pack_bf16x8(s);
  }
}

}  // namespace cktune::kernels::moe_2stages::detail
