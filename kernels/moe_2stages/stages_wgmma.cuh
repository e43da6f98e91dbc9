#pragma once
// Prefill kernel of MoE stage 2 on Hopper's wgmma (sm_90a): y = aq . w2[e]^T (K = inter_dim) times the
// routed weight into y_slots, per sorted block (block_m rows of one expert) and tile of 128 output
// columns. The weights, the bytes that are reused, arrive through TMA; the activation rows are gathered
// through the sorted ids, so a producer warpgroup copies them with cp.async straight into the
// 128-byte-swizzled layout TMA would have produced, each thread's copies completing on the stage's
// mbarrier. block_m/64 consumer warpgroups issue wgmma m64n128k32 (fp8) on 64 rows each; every 128-K
// block goes into a fresh fp32 partial that is promoted into the accumulator times
// a_scale[row, kb] * w_scale[tile, kb] on the CUDA cores.
//
// Stage 1 has no wgmma instance, measured (docs/arch/moe.md, "Why stage 1 stays on the warp MMA"): the
// fp8 wgmma sums the 32 products of an instruction in fixed point and keeps about 14 bits, and stage 1's
// output is re-quantised to fp8 for stage 2, which turns those errors into flipped roundings
// (DeepSeek-V3 shapes: errRatio 0.02-0.06 against 0.0002, single rows at 0.31-0.44, failing the row
// check); converting the tiles to f16 for the f16 wgmma was exact but slower than the warp MMA.
#include <cstdint>

#include "../common/arch_sm90.hpp"
#include "../common/numeric.hpp"
#include "../common/tma_map.hpp"
#include "../common/wgmma_block.hpp"
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

#if defined(CKTUNE_CUDA)
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
      gather_rows<BM, 128>(rows, a.aq, I, kb, a.topk, smem_u32(st), pt);
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
    wgmma_block_k128<TN>(t, smem_u32(smem + s * C::kStageBytes) + wg * 64 * 128,
                         smem_u32(smem + s * C::kStageBytes + C::kABytes));
    wgmma_wait<0>();
    if (lane == 0) mbar_arrive(&empty[s]);
    fence_operands(t);
    promote_rows(acc, t, s0, s1);
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

#endif  // CKTUNE_CUDA

}  // namespace cktune::kernels::moe_2stages::detail
