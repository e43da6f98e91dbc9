#pragma once
// Prefill kernels of the two MoE stages on Hopper's wgmma (sm_90a).
//
// Both work per sorted block (block_m rows of one expert) and per tile of 128 weight rows, 128 K at a
// time. The weights, the bytes that are reused, arrive through TMA; the activation rows are gathered
// through the sorted ids, so a producer warpgroup copies them with cp.async straight into the
// 128-byte-swizzled layout TMA would have produced. block_m/64 consumer warpgroups issue wgmma on 64
// rows each; every 128-K block goes into a fresh fp32 partial that is promoted into the accumulator
// times a_scale[row, kb] * w_scale[tile, kb] on the CUDA cores.
//
// Stage 2 (y = aq . w2[e]^T, K = inter_dim, times the routed weight into y_slots) multiplies fp8 by
// fp8 on the tensor cores (wgmma k32 e4m3).
//
// Stage 1 (gate and up rows of w1[e], K = model_dim; silu(gate) * up into `a`) does not: the fp8
// wgmma sums the 32 products of an instruction in fixed point aligned to the largest one and keeps
// about 14 bits, and stage 1's output is re-quantised to fp8 for stage 2, which turns those errors
// into flipped roundings. Measured on DeepSeek-V3 shapes (docs/arch/moe.md): errRatio 0.02-0.06 against
// the reference (the warp-MMA kernels: 0.0002) with single output rows at 0.31-0.44, failing the row
// check, and promoting every 32 K instead of every 128 K only halved it. So stage 1 converts both
// tiles to f16 in shared memory (exact: every e4m3 value is an f16 value) and runs the f16 wgmma,
// which accumulates in fp32: the producer warpgroup gathers and loads the fp8 tiles kLoadAhead
// blocks ahead, converts block kb into the f16 stage the consumers read, and signals it.
#include <cstdint>

#include "../common/arch_sm90.hpp"
#include "../common/numeric.hpp"
#include "../common/tma_map.hpp"
#include "../common/wgmma_e4m3.hpp"
#include "../common/wgmma_f16.hpp"
#include "stages.cuh"

namespace cktune::kernels::moe_2stages::detail {

// Stage 2, fp8 wgmma: BM rows (64: one consumer warpgroup, two CTAs an SM; 128: two), ST stages.
template <int BM, int ST>
struct Wg2Cfg {
  static constexpr int kBM = BM, kTN = 128, kStages = ST;
  static constexpr int kConsumers = BM / 64;
  static constexpr int kThreads = (kConsumers + 1) * 128;
  static constexpr int kMinBlocks = BM == 64 ? 2 : 1;
  static constexpr int kProducerRegs = 40;
  static constexpr int kConsumerRegs = BM == 64 ? 208 : 232;  // (consumers*R + 40) * 128 * kMinBlocks <= 65536
  static constexpr int kABytes = BM * 128, kBBytes = kTN * 128;
  static constexpr int kStageBytes = kABytes + kBBytes;
  static constexpr int kRowsOfs = ST * kStageBytes;
  static constexpr int kBarOfs = kRowsOfs + BM * 16;
  static constexpr int kSmem = kBarOfs + 2 * ST * 8 + 1024;  // + slack for the 1024-byte alignment
  static_assert(BM == 64 || BM == 128, "one or two consumer warpgroups");
  static_assert(kStageBytes % 1024 == 0, "stages keep the 1024-byte alignment of the swizzle");
  static_assert(kSmem * kMinBlocks <= 227 * 1024, "shared memory per SM");
};

// Stage 1, f16 wgmma: BM rows, ST8 fp8 load slots (loads run ST8-1 blocks ahead), ST16 f16 stages.
template <int BM, int ST8, int ST16>
struct Wg1Cfg {
  static constexpr int kBM = BM, kTN = 128, kStages8 = ST8, kStages16 = ST16, kLoadAhead = ST8 - 1;
  static constexpr int kConsumers = BM / 64;
  static constexpr int kThreads = (kConsumers + 1) * 128;
  static constexpr int kProducerRegs = BM == 64 ? 96 : 56;
  static constexpr int kConsumerRegs = BM == 64 ? 232 : 224;
  static constexpr int kA8 = BM * 128, kB8 = kTN * 128, kStage8 = kA8 + kB8;
  static constexpr int kA16 = BM * 256, kB16 = kTN * 256, kStage16 = kA16 + kB16;
  static constexpr int kOfs16 = ST8 * kStage8;
  static constexpr int kRowsOfs = kOfs16 + ST16 * kStage16;
  static constexpr int kBarOfs = kRowsOfs + BM * 16;
  static constexpr int kSmem = kBarOfs + (ST8 + 2 * ST16) * 8 + 1024;
  static_assert(BM == 64 || BM == 128, "one or two consumer warpgroups");
  static_assert(ST8 >= 2 && ST16 >= 1, "at least one block loading while one converts");
  static_assert(kStage8 % 1024 == 0 && kStage16 % 1024 == 0, "stages keep the 1024-byte alignment");
  static_assert(kSmem <= 227 * 1024, "shared memory per CTA exceeds the sm_90 limit");
  static_assert((kConsumers * kConsumerRegs + kProducerRegs) * 128 <= 65536, "register split");
};

#if defined(CKTUNE_CUDA)
// The block's activation rows of k-block kb, gathered into a 128-byte-swizzled [BM][128] fp8 tile
// (padding rows: zeros). Each of the 128 producer threads copies one 16-byte chunk of every 16th row.
template <int BM>
__device__ __forceinline__ void gather_rows(const RowInfo* rows, const uint8_t* base, int K, int kb, bool by_token,
                                            int topk, uint32_t dst, int pt) {
  using namespace cktune::gpu::sm90;
  const int ch = pt & 7;
#pragma unroll
  for (int r = pt >> 3; r < BM; r += 16) {
    const RowInfo ri = rows[r];
    const size_t src = ri.token < 0 ? 0
                       : by_token   ? static_cast<size_t>(ri.token)
                                    : static_cast<size_t>(ri.token) * topk + ri.slot;
    cp_async_16(dst + swz<128>(r, ch), base + src * K + kb * 128 + ch * 16, ri.token >= 0 ? 16 : 0);
  }
}

// acc += t * scale, per column group j: the first `split` groups with (g0, g1), the rest with (u0, u1)
// (stage 1: gate and up columns have their own weight scales), rows r0 / r1 of the thread.
template <int N>
__device__ __forceinline__ void promote_split(float (&acc)[N / 2], float (&t)[N / 2], int split, float g0, float g1,
                                              float u0, float u1) {
  cktune::gpu::sm90::fence_operands(t);
#pragma unroll
  for (int j = 0; j < N / 8; ++j) {
    const float s0 = j < split ? g0 : u0, s1 = j < split ? g1 : u1;
    acc[j * 4 + 0] = fmaf(t[j * 4 + 0], s0, acc[j * 4 + 0]);
    acc[j * 4 + 1] = fmaf(t[j * 4 + 1], s0, acc[j * 4 + 1]);
    acc[j * 4 + 2] = fmaf(t[j * 4 + 2], s1, acc[j * 4 + 2]);
    acc[j * 4 + 3] = fmaf(t[j * 4 + 3], s1, acc[j * 4 + 3]);
  }
}

template <class C>
__global__ void __launch_bounds__(C::kThreads, C::kMinBlocks)
    wg_stage2_kernel(const __grid_constant__ CUtensorMap tmap_w, const Args a) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 900) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace cktune::gpu::sm90;
  constexpr int BM = C::kBM, TN = C::kTN, ST = C::kStages;
  const int block = blockIdx.y;
  if (block * BM >= a.num_valid_ids[0]) return;  // the whole CTA leaves before any barrier

  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  RowInfo* rows = reinterpret_cast<RowInfo*>(smem + C::kRowsOfs);
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + C::kBarOfs);
  uint64_t* empty = full + ST;

  const int tid = threadIdx.x, wg = tid / 128;
  const int e = a.sorted_expert_ids[block];
  const int D = a.model_dim, I = a.inter_dim, KB = I / 128;
  const int n0 = blockIdx.x * TN;

  load_rows<BM>(a, block, rows);
  if (tid == 0) {
    for (int s = 0; s < ST; ++s) {
      mbar_init(&full[s], 128 + 1);             // the producers' cp.async arrivals + the TMA transaction
      mbar_init(&empty[s], C::kConsumers * 4);  // one arrival per consumer warp
    }
    fence_barrier_init();
  }
  __syncthreads();

  if (wg == C::kConsumers) {
    setmaxnreg_dec<C::kProducerRegs>();
    const int pt = tid - C::kConsumers * 128;
    if (pt == 0) tma_prefetch_desc(&tmap_w);
    for (int kb = 0; kb < KB; ++kb) {
      const int s = kb % ST;
      if (kb >= ST) mbar_wait(&empty[s], ((kb / ST) + 1) & 1);
      uint8_t* st = smem + s * C::kStageBytes;
      if (pt == 0) {
        mbar_expect_tx(&full[s], C::kBBytes);
        tma_load_2d(smem_u32(st + C::kABytes), &tmap_w, &full[s], kb * 128, e * D + n0);
      }
      gather_rows<BM>(rows, a.aq, I, kb, false, a.topk, smem_u32(st), pt);
      cp_async_mbar_arrive_noinc(&full[s]);  // one arrival once this thread's copies have landed
    }
    return;
  }
  setmaxnreg_inc<C::kConsumerRegs>();

  const int lane = tid & 31;
  const int wid = (tid % 128) / 32;
  const int lr0 = wg * 64 + wid * 16 + (lane >> 2), lr1 = lr0 + 8;  // this thread's two rows
  const RowInfo ri0 = rows[lr0], ri1 = rows[lr1];
  const bool ok0 = ri0.token >= 0, ok1 = ri1.token >= 0;
  const float* xs0 = a.a_scale + (static_cast<size_t>(ok0 ? ri0.token : 0) * a.topk + ri0.slot) * KB;
  const float* xs1 = a.a_scale + (static_cast<size_t>(ok1 ? ri1.token : 0) * a.topk + ri1.slot) * KB;
  const float* ws = a.w2_scale + (static_cast<size_t>(e) * (D / 128) + n0 / 128) * KB;

  float acc[TN / 2], t[TN / 2];
#pragma unroll
  for (int i = 0; i < TN / 2; ++i) acc[i] = 0.f;
  for (int kb = 0; kb < KB; ++kb) {
    const float w = __ldg(ws + kb);
    const float s0 = ok0 ? __ldg(xs0 + kb) * w : 0.f, s1 = ok1 ? __ldg(xs1 + kb) * w : 0.f;
    const int s = kb % ST;
    mbar_wait(&full[s], (kb / ST) & 1);
    fence_proxy_async_smem();  // the gathered rows were written by cp.async (generic proxy); wgmma reads async
    const uint64_t da = smem_desc_sw128(smem_u32(smem + s * C::kStageBytes) + wg * 64 * 128);
    const uint64_t db = smem_desc_sw128(smem_u32(smem + s * C::kStageBytes + C::kABytes));
    wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < 4; ++ks) WgmmaE4m3<TN>::run(t, da + 2 * ks, db + 2 * ks, ks > 0 ? 1 : 0);
    wgmma_commit();
    wgmma_wait<0>();
    if (lane == 0) mbar_arrive(&empty[s]);
    promote_split<TN>(acc, t, TN / 8, s0, s1, s0, s1);
  }

  // y_slots[token*topk + slot, n0 ..] = bf16(w * acc): each thread holds, per 8-column group j, two
  // adjacent columns of its two rows (4-byte stores).
  const int c0 = (lane & 3) * 2;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const RowInfo& ri = h ? ri1 : ri0;
    if (ri.token < 0) continue;
    const float rw = a.doweight_stage1 ? 1.0f : ri.weight;
    uint16_t* dst = a.y_slots + (static_cast<size_t>(ri.token) * a.topk + ri.slot) * D + n0 + c0;
#pragma unroll
    for (int j = 0; j < TN / 8; ++j)
      *reinterpret_cast<uint32_t*>(dst + j * 8) = gpu::pack_bf16x2(acc[j * 4 + 2 * h] * rw, acc[j * 4 + 2 * h + 1] * rw);
  }
#endif
}

template <class C>
__global__ void __launch_bounds__(C::kThreads, 1)
    wg_stage1_kernel(const __grid_constant__ CUtensorMap tmap_w, const Args a) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 900) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace cktune::gpu::sm90;
  constexpr int BM = C::kBM, TN = C::kTN, HN = TN / 2, ST8 = C::kStages8, ST16 = C::kStages16, L = C::kLoadAhead;
  const int block = blockIdx.y;
  if (block * BM >= a.num_valid_ids[0]) return;

  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  uint8_t* smem16 = smem + C::kOfs16;
  RowInfo* rows = reinterpret_cast<RowInfo*>(smem + C::kRowsOfs);
  uint64_t* loaded = reinterpret_cast<uint64_t*>(smem + C::kBarOfs);  // [ST8]: the weight tile's TMA
  uint64_t* full = loaded + ST8;                                        // [ST16]: f16 stage converted
  uint64_t* empty = full + ST16;                                        // [ST16]: f16 stage consumed

  const int tid = threadIdx.x, wg = tid / 128;
  const int e = a.sorted_expert_ids[block];
  const int D = a.model_dim, I = a.inter_dim, KB = D / 128;
  const int n0 = blockIdx.x * HN;

  load_rows<BM>(a, block, rows);
  if (tid == 0) {
    for (int s = 0; s < ST8; ++s) mbar_init(&loaded[s], 1);
    for (int s = 0; s < ST16; ++s) {
      mbar_init(&full[s], 128);
      mbar_init(&empty[s], C::kConsumers * 4);
    }
    fence_barrier_init();
  }
  __syncthreads();

  if (wg == C::kConsumers) {
    setmaxnreg_dec<C::kProducerRegs>();
    const int pt = tid - C::kConsumers * 128;
    if (pt == 0) tma_prefetch_desc(&tmap_w);
    // Block kb's fp8 tiles into load slot kb % ST8: activation rows by cp.async (one commit group per
    // block and thread, empty groups past the end keep the count uniform), weights by TMA.
    auto load = [&](int kb) {
      if (kb < KB) {
        const int s = kb % ST8;
        uint8_t* st = smem + s * C::kStage8;
        if (pt == 0) {
          fence_proxy_async_smem();  // this slot was last read by ordinary loads (the conversion)
          mbar_expect_tx(&loaded[s], C::kB8);
          tma_load_2d(smem_u32(st + C::kA8), &tmap_w, &loaded[s], kb * 128, e * 2 * I + n0);
          tma_load_2d(smem_u32(st + C::kA8 + HN * 128), &tmap_w, &loaded[s], kb * 128, e * 2 * I + I + n0);
        }
        gather_rows<BM>(rows, a.xq, D, kb, true, a.topk, smem_u32(st), pt);
      }
      cp_async_commit();
    };
    for (int kb = 0; kb < L; ++kb) load(kb);
    for (int kb = 0; kb < KB; ++kb) {
      load(kb + L);
      cp_async_wait<L>();  // this thread's rows of block kb have landed
      const int s8 = kb % ST8, s16 = kb % ST16;
      mbar_wait(&loaded[s8], (kb / ST8) & 1);
      named_barrier_sync(1, 128);  // ... and every other producer thread's
      if (kb >= ST16) mbar_wait(&empty[s16], ((kb / ST16) + 1) & 1);
      // fp8 [rows][128] swizzled -> f16 as two [rows][64] halves (K 0..63, 64..127), each swizzled.
      const uint8_t* src = smem + s8 * C::kStage8;
      uint8_t* dst = smem16 + s16 * C::kStage16;
#pragma unroll 4
      for (int item = pt; item < (BM + TN) * 8; item += 128) {
        const int row = item >> 3, c = item & 7;
        const bool is_a = row < BM;
        const int rr = is_a ? row : row - BM, rows_t = is_a ? BM : TN;
        const uint4 v = *reinterpret_cast<const uint4*>(src + (is_a ? 0 : C::kA8) + swz<128>(rr, c));
        const uint32_t w[4] = {v.x, v.y, v.z, v.w};
        uint32_t h[8];
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          h[2 * q] = cvt_e4m3x2_f16x2(static_cast<uint16_t>(w[q] & 0xffffu));
          h[2 * q + 1] = cvt_e4m3x2_f16x2(static_cast<uint16_t>(w[q] >> 16));
        }
        uint8_t* half = dst + (is_a ? 0 : C::kA16) + (c >> 2) * rows_t * 128;
        const int c16 = (c & 3) * 2;
        *reinterpret_cast<uint4*>(half + swz<128>(rr, c16)) = make_uint4(h[0], h[1], h[2], h[3]);
        *reinterpret_cast<uint4*>(half + swz<128>(rr, c16 + 1)) = make_uint4(h[4], h[5], h[6], h[7]);
      }
      fence_proxy_async_smem();  // the f16 tiles are read by wgmma (async proxy)
      mbar_arrive(&full[s16]);
      named_barrier_sync(1, 128);  // slot s8 is read by all before the next load() refills it
    }
    return;
  }
  setmaxnreg_inc<C::kConsumerRegs>();

  const int lane = tid & 31;
  const int wid = (tid % 128) / 32;
  const int lr0 = wg * 64 + wid * 16 + (lane >> 2), lr1 = lr0 + 8;
  const RowInfo ri0 = rows[lr0], ri1 = rows[lr1];
  const bool ok0 = ri0.token >= 0, ok1 = ri1.token >= 0;
  const float* xs0 = a.x_scale + static_cast<size_t>(ok0 ? ri0.token : 0) * KB;
  const float* xs1 = a.x_scale + static_cast<size_t>(ok1 ? ri1.token : 0) * KB;
  const float* wsg = a.w1_scale + (static_cast<size_t>(e) * (2 * I / 128) + n0 / 128) * KB;
  const float* wsu = a.w1_scale + (static_cast<size_t>(e) * (2 * I / 128) + (I + n0) / 128) * KB;

  float acc[TN / 2], t[TN / 2];
#pragma unroll
  for (int i = 0; i < TN / 2; ++i) acc[i] = 0.f;
  for (int kb = 0; kb < KB; ++kb) {
    const float x0 = ok0 ? __ldg(xs0 + kb) : 0.f, x1 = ok1 ? __ldg(xs1 + kb) : 0.f;
    const float wg_ = __ldg(wsg + kb), wu = __ldg(wsu + kb);
    const int s = kb % ST16;
    mbar_wait(&full[s], (kb / ST16) & 1);
    uint8_t* base = smem16 + s * C::kStage16;
    wgmma_fence();
#pragma unroll
    for (int q = 0; q < 8; ++q) {  // 8 x k16; half q/4 of the tile, 32 bytes further per step within it
      const uint64_t da = smem_desc_sw128(smem_u32(base + (q >> 2) * BM * 128 + wg * 64 * 128)) + 2 * (q & 3);
      const uint64_t db = smem_desc_sw128(smem_u32(base + C::kA16 + (q >> 2) * TN * 128)) + 2 * (q & 3);
      WgmmaF16<TN>::run(t, da, db, q > 0 ? 1 : 0);
    }
    wgmma_commit();
    wgmma_wait<0>();
    if (lane == 0) mbar_arrive(&empty[s]);
    promote_split<TN>(acc, t, HN / 8, x0 * wg_, x1 * wg_, x0 * wu, x1 * wu);
  }

  // a[token*topk + slot, n0 ..] = bf16(silu(gate) * up (* routed weight)); gate column c is group j,
  // its up partner group j + HN/8 of the same thread.
  const int c0 = (lane & 3) * 2;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const RowInfo& ri = h ? ri1 : ri0;
    if (ri.token < 0) continue;
    const float rw = a.doweight_stage1 ? ri.weight : 1.0f;
    uint16_t* dst = a.a + (static_cast<size_t>(ri.token) * a.topk + ri.slot) * I + n0 + c0;
#pragma unroll
    for (int j = 0; j < HN / 8; ++j) {
      const float g0 = acc[j * 4 + 2 * h], g1 = acc[j * 4 + 2 * h + 1];
      const float u0 = acc[(j + HN / 8) * 4 + 2 * h], u1 = acc[(j + HN / 8) * 4 + 2 * h + 1];
      *reinterpret_cast<uint32_t*>(dst + j * 8) = gpu::pack_bf16x2(silu(g0) * u0 * rw, silu(g1) * u1 * rw);
    }
  }
#endif
}
#endif  // CKTUNE_CUDA

}  // namespace cktune::kernels::moe_2stages::detail
