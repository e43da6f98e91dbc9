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
#include "../common/numeric.hpp"
#include "../common/wgmma_e4m3.hpp"
#include "a8w8_blockscale.hpp"

#if defined(CKTUNE_CUDA)
#include <cuda.h>
#include <cudaTypedefs.h>
#endif

namespace cktune::kernels::a8w8_blockscale::detail {

template <int BM, int BN, int STAGES>
struct WgCfg {
  static constexpr int kBM = BM, kBN = BN, kStages = STAGES;
  static constexpr int kConsumers = BM / 64;                 // consumer warpgroups
  static constexpr int kWarps = (kConsumers + 1) * 4;        // + one producer warpgroup
  static constexpr int kThreads = kWarps * 32;
  static constexpr int kABytes = BM * 128;
  static constexpr int kBBytes = BN * 128;
  static constexpr int kStageBytes = kABytes + kBBytes;
  // Stages first (1024-byte aligned for the swizzle), then 2*STAGES mbarriers, + alignment slack.
  static constexpr int kSmemBytes = STAGES * kStageBytes + 2 * STAGES * 8 + 1024;
  static_assert(BM % 64 == 0 && 128 % BN == 0 && BN % 64 == 0, "tile shape");
  static_assert(kStageBytes % 1024 == 0, "stage must keep 1024-byte alignment");
};

struct WgArgs {
  const float* x_scale;
  const float* w_scale;
  uint16_t* y;
  int M, N, K, KB;
};

#if defined(CKTUNE_CUDA)
template <class C>
__global__ void __launch_bounds__(C::kThreads, 1)
    wgmma_kernel(const __grid_constant__ CUtensorMap tmap_x, const __grid_constant__ CUtensorMap tmap_w,
                 const WgArgs a) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 900) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace cktune::gpu::sm90;
  constexpr int BM = C::kBM, BN = C::kBN, ST = C::kStages;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + ST * C::kStageBytes);
  uint64_t* empty = full + ST;

  const int tid = threadIdx.x;
  const int wg = tid / 128;  // warpgroup; the last one is the producer
  const int m0 = blockIdx.y * BM;
  const int n0 = blockIdx.x * BN;
  const int KB = a.KB;

  if (tid == 0) {
    for (int s = 0; s < ST; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], C::kConsumers * 4);  // one arrival per consumer warp
    }
    fence_barrier_init();
  }
  __syncthreads();

  if (wg == C::kConsumers) {
    // Producer: a single thread streams the stages.
    if (tid == C::kConsumers * 128) {
      tma_prefetch_desc(&tmap_x);
      tma_prefetch_desc(&tmap_w);
      for (int kb = 0; kb < KB; ++kb) {
        const int s = kb % ST;
        if (kb >= ST) mbar_wait(&empty[s], ((kb / ST) + 1) & 1);
        uint8_t* st = smem + s * C::kStageBytes;
        mbar_expect_tx(&full[s], C::kStageBytes);
        tma_load_2d(smem_u32(st), &tmap_x, &full[s], kb * 128, m0);
        tma_load_2d(smem_u32(st + C::kABytes), &tmap_w, &full[s], kb * 128, n0);
      }
    }
    return;
  }

  // Consumers.
  const int lane = tid & 31;
  const int wid = (tid % 128) / 32;
  const int row0 = m0 + wg * 64 + wid * 16 + (lane >> 2);  // this thread's rows: row0, row0 + 8
  const int row1 = row0 + 8;
  const float* xs0p = a.x_scale + static_cast<size_t>(row0 < a.M ? row0 : 0) * KB;
  const float* xs1p = a.x_scale + static_cast<size_t>(row1 < a.M ? row1 : 0) * KB;
  const float* wsp = a.w_scale + static_cast<size_t>(n0 / 128) * KB;
  const bool ok0 = row0 < a.M, ok1 = row1 < a.M;

  float acc[BN / 2];
  float tmp[BN / 2];
#pragma unroll
  for (int i = 0; i < BN / 2; ++i) acc[i] = 0.f;

  float nx0 = ok0 ? __ldg(xs0p) : 0.f, nx1 = ok1 ? __ldg(xs1p) : 0.f, nw = __ldg(wsp);
  for (int kb = 0; kb < KB; ++kb) {
    const int s = kb % ST;
    const float x0 = nx0, x1 = nx1, w = nw;
    if (kb + 1 < KB) {
      nx0 = ok0 ? __ldg(xs0p + kb + 1) : 0.f;
      nx1 = ok1 ? __ldg(xs1p + kb + 1) : 0.f;
      nw = __ldg(wsp + kb + 1);
    }
    mbar_wait(&full[s], (kb / ST) & 1);
    const uint32_t sa = smem_u32(smem + s * C::kStageBytes) + wg * 64 * 128;
    const uint32_t sb = smem_u32(smem + s * C::kStageBytes + C::kABytes);
    const uint64_t da = smem_desc_sw128(sa);
    const uint64_t db = smem_desc_sw128(sb);
    fence_operands(tmp);
    wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < 4; ++ks) {
      // Advancing 32 bytes along K inside the swizzled 128-byte row = +2 in the address field.
      WgmmaE4m3<BN>::run(tmp, da + 2 * ks, db + 2 * ks, ks > 0 ? 1 : 0);
    }
    wgmma_commit();
    wgmma_wait<0>();
    fence_operands(tmp);
    if (lane == 0) mbar_arrive(&empty[s]);
    const float s0 = x0 * w, s1 = x1 * w;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      acc[j * 4 + 0] = fmaf(tmp[j * 4 + 0], s0, acc[j * 4 + 0]);
      acc[j * 4 + 1] = fmaf(tmp[j * 4 + 1], s0, acc[j * 4 + 1]);
      acc[j * 4 + 2] = fmaf(tmp[j * 4 + 2], s1, acc[j * 4 + 2]);
      acc[j * 4 + 3] = fmaf(tmp[j * 4 + 3], s1, acc[j * 4 + 3]);
    }
  }

  // Epilogue: bf16 pairs straight from registers; rows/cols past M/N are dropped.
  const int cb = n0 + (lane & 3) * 2;
  const bool even_n = (a.N & 1) == 0;
#pragma unroll
  for (int j = 0; j < BN / 8; ++j) {
    const int c = cb + j * 8;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = h ? row1 : row0;
      if (r >= a.M || c >= a.N) continue;
      const float v0 = acc[j * 4 + h * 2], v1 = acc[j * 4 + h * 2 + 1];
      uint16_t* dst = a.y + static_cast<size_t>(r) * a.N + c;
      if (even_n && c + 1 < a.N) {
        *reinterpret_cast<uint32_t*>(dst) = gpu::pack_bf16x2(v0, v1);
      } else {
        dst[0] = gpu::f32_to_bf16_bits(v0);
        if (c + 1 < a.N) dst[1] = gpu::f32_to_bf16_bits(v1);
      }
    }
  }
#endif
}

// The driver's tensor-map encoder, found through the runtime so that libcuda is never linked.
inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) !=
            cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
      p = nullptr;
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

// 2-D map over a row-major [rows, K] fp8 matrix: boxes of 128 K-bytes x box_rows, 128-byte swizzle,
// rows past the end read as zero.
inline bool make_kmajor_map(CUtensorMap* map, const void* base, int rows, int K, int box_rows) {
  auto enc = tensor_map_encoder();
  if (enc == nullptr) return false;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(K), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(K)};
  const cuuint32_t box[2] = {128, static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t estr[2] = {1, 1};
  return enc(map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, const_cast<void*>(base), dims, strides, box, estr,
             CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

template <class C>
gpu::ErrorCode launch_wgmma(const InstanceParams&, const Args& a, gpu::Stream stream) {
  static std::atomic<bool> smem_set{false};
  auto kernel = wgmma_kernel<C>;
  if (!smem_set.load(std::memory_order_relaxed)) {
    const auto e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, C::kSmemBytes);
    if (e != cudaSuccess) return e;
    smem_set.store(true, std::memory_order_relaxed);
  }
  CUtensorMap mx, mw;
  if (!make_kmajor_map(&mx, a.xq, a.M, a.K, C::kBM) || !make_kmajor_map(&mw, a.wq, a.N, a.K, C::kBN))
    return cudaErrorInvalidValue;
  WgArgs w{a.x_scale, a.w_scale, a.y, a.M, a.N, a.K, a.K / 128};
  const dim3 grid((a.N + C::kBN - 1) / C::kBN, (a.M + C::kBM - 1) / C::kBM);
  kernel<<<grid, C::kThreads, C::kSmemBytes, stream>>>(mx, mw, w);
  return cudaGetLastError();
}
#endif

}  // namespace cktune::kernels::a8w8_blockscale::detail
