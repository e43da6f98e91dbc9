#pragma once
// Decode kernel on Hopper with the operands swapped: Y^T = W * X^T. W's rows take wgmma's 64-row side
// and the few tokens (M <= 32) its N side (8, 16 or 32), so a stage holds BW rows of W and only BT
// rows of X: the shared memory goes to weights in flight instead of to zero-filled token rows, and a
// 128-K block is four m64nBTk32 instead of four m64n64k32 on mostly empty rows.
//
// One producer thread streams [W box | X box] stages through an mbarrier ring (TMA, 128-byte swizzle;
// preshuffled W through the un-shuffling 3-D map into the no-swizzle layout); BW/64 consumer
// warpgroups each own 64 W rows of the tile and take every k-block, two partial tiles in flight
// (block i+1's wgmma run while block i is promoted). Block scales are applied per 128-K block (the
// weight scale is one per warpgroup, BW divides 128; the token scale one per column); per-token scales
// once on the finished tile. Split-K: the S CTAs of a tile are one 1 x 1 x S cluster and sum their
// partials through distributed shared memory (splitk.cuh), so no launch and no workspace is added.
//
// NVIDIA sm_90a only.
#include <cstdint>

#include "wgmma.cuh"

namespace cktune::kernels::a8w8_blockscale::detail {

// BT: token rows a CTA (wgmma N); BW: W rows a CTA (64 per consumer warpgroup).
template <int BT, int BW, int STAGES, Scaling SC>
struct SwapCfg {
  static constexpr int kBT = BT, kBW = BW, kStages = STAGES;
  static constexpr bool kBlockScales = SC == Scaling::Block128;
  static constexpr bool kPreshuffledW = SC == Scaling::PerTokenPreshuffledW;
  static_assert(!is_int8(SC), "the wgmma kernels are fp8 only");
  static constexpr int kConsumers = BW / 64;
  static constexpr int kWarps = (kConsumers + 1) * 4;
  static constexpr int kThreads = kWarps * 32;
  static constexpr int kWBytes = BW * 128;
  static constexpr int kXBytes = BT * 128;
  static constexpr int kStageBytes = kWBytes + kXBytes;
  // Output staging, transposed back: one row of bf16 a token, 16 bytes of padding a row.
  static constexpr int kEpiPitch = BW * 2 + 16;
  static constexpr int kEpiBytes = BT * kEpiPitch;
  // A split-K partial parked as [BW rows][BT tokens] floats over the stages.
  static constexpr int kRedPitch = BT + 8;
  static constexpr int kSmemBytes = STAGES * kStageBytes + kEpiBytes + 2 * STAGES * 8 + 1024;
  static_assert(BW == 64 || BW == 128, "one or two consumer warpgroups (BW divides a 128-row scale block)");
  static_assert(BT == 8 || BT == 16 || BT == 32, "token tile");
  static_assert(kStageBytes % 1024 == 0, "stage must keep 1024-byte alignment");
  static_assert(kSmemBytes <= 227 * 1024, "shared memory per CTA exceeds the sm_90 limit");
  static_assert(BW * kRedPitch * 4 <= STAGES * kStageBytes, "the parked split-K partial must fit the stages");
};

#if defined(CKTUNE_CUDA)
template <class C>
__global__ void __launch_bounds__(C::kThreads, 1)
    wgmma_swap_kernel(const __grid_constant__ CUtensorMap tmap_x, const __grid_constant__ CUtensorMap tmap_xt,
                      const __grid_constant__ CUtensorMap tmap_w, const WgArgs a) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 900) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace cktune::gpu::sm90;
  constexpr int BT = C::kBT, BW = C::kBW, ST = C::kStages;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = align_smem<1024>(smem_raw);
  uint8_t* epi = smem + ST * C::kStageBytes;
  uint64_t* full = reinterpret_cast<uint64_t*>(epi + C::kEpiBytes);
  uint64_t* empty = full + ST;

  const int tid = threadIdx.x;
  const int wg = warp_uniform(tid / 128);  // the last warpgroup is the producer
  const int n0 = blockIdx.x * BW;
  const int m0 = blockIdx.y * BT;
  const int KB = a.KB;
  const int z = blockIdx.z;
  const int kb_begin = (z * KB) / a.S;
  const int nkb = ((z + 1) * KB) / a.S - kb_begin;

  if (tid == 0) init_ring(full, empty, ST, C::kConsumers * 4);  // every consumer warp reads every stage
  __syncthreads();

  if (wg == C::kConsumers) {
    if (tid == C::kConsumers * 128) {
      const XSource xs = x_source<BT, C::kStageBytes>(&tmap_x, &tmap_xt, m0, a);  // the last token tile's box
      tma_prefetch_desc(xs.map);
      tma_prefetch_desc(&tmap_w);
      produce_stages<ST, C::kStageBytes>(smem, full, empty, nkb, xs.stage_tx, [&](uint32_t st, uint64_t* bar, int i) {
        load_w<C>(st, &tmap_w, bar, kb_begin + i, n0);
        tma_load_2d(st + C::kWBytes, xs.map, bar, (kb_begin + i) * 128, m0);
      });
    }
    if constexpr (!C::kBlockScales)
      if (tid / 32 == C::kConsumers * 4 + 1) prefetch_outer_scales(a, m0, BT, n0, BW, tid & 31);
    if (a.S > 1)
      cluster_splitk_reduce<BW, BT, C::kRedPitch, 1, true>(nullptr, false, 0, 1, a.S, 0, 0, 0, 0, nullptr);
    return;
  }

  const int lane = tid & 31;
  const int wid = (tid % 128) / 32;
  const int lr0 = wg * 64 + wid * 16 + (lane >> 2);  // this thread's W rows in the tile: lr0, lr0 + 8
  const int cb = (lane & 3) * 2;                      // and its token columns: cb + 8j, cb + 8j + 1
  // Block scales: this warpgroup's weight-scale row (its 64 rows sit in one 128-row block; a second
  // warpgroup past N reads the last row and its columns are never stored).
  const int ws_row = min((n0 + wg * 64) / 128, (a.N - 1) / 128);

  float acc[BT / 2];
  float ta[BT / 2], tb[BT / 2];
#pragma unroll
  for (int i = 0; i < BT / 2; ++i) acc[i] = 0.f;

  // The scales of block i, one a token column (x_scale[m, kb] * w_scale[row, kb]; 0 past M). Loaded
  // before the block's wgmma are waited for.
  constexpr int kCols = C::kBlockScales ? BT / 4 : 1;
  auto col_scales = [&](int i, float(&sc)[kCols]) {
    if constexpr (C::kBlockScales) {
      const int kb = kb_begin + i;
      const float w = __ldg(a.w_scale + static_cast<size_t>(ws_row) * KB + kb);
#pragma unroll
      for (int j = 0; j < BT / 8; ++j)
#pragma unroll
        for (int c = 0; c < 2; ++c) {
          const int m = m0 + cb + j * 8 + c;
          sc[j * 2 + c] = m < a.M ? __ldg(a.x_scale + static_cast<size_t>(m) * KB + kb) * w : 0.f;
        }
    } else {
      sc[0] = 1.f;
    }
  };
  auto issue = [&](int i, float(&t)[BT / 2]) {
    const int s = i % ST;
    mbar_wait(&full[s], (i / ST) & 1);
    const uint32_t w = smem_u32(smem + s * C::kStageBytes);
    const uint32_t x = w + C::kWBytes;
    if constexpr (C::kPreshuffledW) {
      // W as [8 K chunks][BW rows][16 bytes]: chunks BW*16 bytes apart, this warpgroup's rows from wg*64.
      wgmma_block_k128_desc<BT>(t, smem_desc_interleave(w + wg * 64 * 16, BW * 16, 128), smem_desc_sw128(x),
                                2 * BW, 2);
    } else {
      wgmma_block_k128<BT>(t, w + wg * 64 * 128, x);
    }
  };
  auto promote = [&](int i, float(&t)[BT / 2], const float(&sc)[kCols]) {
    fence_operands(t);
    if (lane == 0) mbar_arrive(&empty[i % ST]);
#pragma unroll
    for (int j = 0; j < BT / 8; ++j)
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        if constexpr (C::kBlockScales) {
          acc[j * 4 + c] += t[j * 4 + c] * sc[j * 2 + c];
          acc[j * 4 + 2 + c] += t[j * 4 + 2 + c] * sc[j * 2 + c];
        } else {
          acc[j * 4 + c] += t[j * 4 + c];
          acc[j * 4 + 2 + c] += t[j * 4 + 2 + c];
        }
      }
  };

  // Blocks in pairs, nothing in flight across the loop's back edge. The prefill kernels' partial tiles taking
  // turns (wgmma_in_turns) were measured here and were 2.2% slower (geomean of 24 decode shapes, up to 11% at
  // 16 x 2112 x 7168; docs/perf.md, 2026-11-25).
  for (int i = 0; i < nkb; i += 2) {
    float sa[kCols], sb[kCols];
    col_scales(i, sa);
    issue(i, ta);
    if (i + 1 < nkb) {
      col_scales(i + 1, sb);
      issue(i + 1, tb);
      wgmma_wait<1>();
      promote(i, ta, sa);
      wgmma_wait<0>();
      promote(i + 1, tb, sb);
    } else {
      wgmma_wait<0>();
      promote(i, ta, sa);
    }
  }

  if constexpr (!C::kBlockScales) {
    // Per-token: x_scale[m] * w_scale[n] once; cells past M or N become 0 and are never stored.
    const int r0 = n0 + lr0, r1 = r0 + 8;
    const float w0 = r0 < a.N ? __ldg(a.w_scale + r0) : 0.f;
    const float w1 = r1 < a.N ? __ldg(a.w_scale + r1) : 0.f;
#pragma unroll
    for (int j = 0; j < BT / 8; ++j)
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        const int m = m0 + cb + j * 8 + c;
        const float x = m < a.M ? __ldg(a.x_scale + m) : 0.f;
        acc[j * 4 + c] *= x * w0;
        acc[j * 4 + 2 + c] *= x * w1;
      }
  }

  if (a.S > 1) {
    // Park the partial over the stages (every consumer is past its last wgmma once all have passed
    // barrier 1; the producer has nothing in flight), then sum across the cluster, transposing back.
    gpu::barrier_sync<1, C::kConsumers * 128>();
    float* red = reinterpret_cast<float*>(smem);
    constexpr int P = C::kRedPitch;
#pragma unroll
    for (int j = 0; j < BT / 8; ++j) {
      const int c = j * 8 + cb;
      *reinterpret_cast<float2*>(red + lr0 * P + c) = make_float2(acc[j * 4 + 0], acc[j * 4 + 1]);
      *reinterpret_cast<float2*>(red + (lr0 + 8) * P + c) = make_float2(acc[j * 4 + 2], acc[j * 4 + 3]);
    }
    cluster_splitk_reduce<BW, BT, P, 1, true>(red, true, tid, C::kConsumers * 128, a.S, m0, n0, a.M, a.N, a.y);
    return;
  }

  // Epilogue: bf16 into a [BT tokens][BW columns] staging tile, then 16-byte stores along each token's row.
  {
    uint16_t* e16 = reinterpret_cast<uint16_t*>(epi);
    constexpr int P16 = C::kEpiPitch / 2;
#pragma unroll
    for (int j = 0; j < BT / 8; ++j)
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        const int ml = cb + j * 8 + c;
        e16[ml * P16 + lr0] = gpu::f32_to_bf16_bits(acc[j * 4 + c]);
        e16[ml * P16 + lr0 + 8] = gpu::f32_to_bf16_bits(acc[j * 4 + 2 + c]);
      }
    gpu::barrier_sync<2, C::kConsumers * 128>();
    store_staged_rows<BW / 8>(epi, C::kEpiPitch, BT, tid, C::kConsumers * 128, m0, n0, a.M, a.N, a.y);
  }
#endif
}

template <class C>
gpu::ErrorCode launch_wgmma_swap(const InstanceParams& p, const Args& a, gpu::Stream stream) {
  static std::atomic<int> smem_set{0};
  auto kernel = wgmma_swap_kernel<C>;
  if (auto e = gpu::allow_dynamic_shared_memory(kernel, C::kSmemBytes, smem_set); e != gpu::kSuccess) return e;
  CUtensorMap mx, mxt, mw;
  const bool w_ok = C::kPreshuffledW ? gpu::tma::make_preshuffled_map(&mw, a.wq, a.N, a.K, C::kBW)
                                     : gpu::tma::make_kmajor_map(&mw, a.wq, a.N, a.K, C::kBW);
  WgArgs w{a.x_scale, a.w_scale, a.y, a.M, a.N, a.K, a.K / 128, p.split_k};
  if (!make_x_maps(&mx, &mxt, a, C::kBT, C::kBT, true, w) || !w_ok)
    return gpu::kErrorInvalidValue;
  const dim3 grid((a.N + C::kBW - 1) / C::kBW, (a.M + C::kBT - 1) / C::kBT, p.split_k);
  return gpu::launch(kernel, grid, dim3(C::kThreads), C::kSmemBytes, stream,
                     gpu::LaunchOpts{dim3(1, 1, static_cast<unsigned>(p.split_k)), false}, mx, mxt, mw, w);
}
#endif

}  // namespace cktune::kernels::a8w8_blockscale::detail
