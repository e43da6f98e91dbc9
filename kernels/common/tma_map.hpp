#pragma once
// Host side of TMA: tensor maps over row-major operands, built through the driver's encoder, which
// is found through the runtime so that libcuda is never linked. NVIDIA only.
#if defined(CKTUNE_CUDA)
#include <cstdint>
#include <cuda.h>
#include <cudaTypedefs.h>

#include "compat.hpp"

namespace cktune::gpu::tma {

inline PFN_cuTensorMapEncodeTiled_v12000 encoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(gpu::driver_entry_point("cuTensorMapEncodeTiled", 12000));
  }();
  return fn;
}

// 2-D map over a row-major [rows, K] fp8 matrix: boxes of 128 K-bytes x box_rows, 128-byte swizzle,
// rows past the end read as zero.
inline bool make_kmajor_map(CUtensorMap* map, const void* base, int rows, int K, int box_rows) {
  auto enc = encoder();
  if (enc == nullptr) return false;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(K), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(K)};
  const cuuint32_t box[2] = {128, static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t estr[2] = {1, 1};
  return enc(map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, const_cast<void*>(base), dims, strides, box, estr,
             CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// 3-D view of the same [rows, K] fp8 matrix as 128-byte k-blocks: dimension 0 is the 128 bytes of a
// k-block, 1 the rows (K bytes apart), 2 the k-blocks (128 bytes apart). A box of (128, box_rows, box_kb)
// lands in shared memory as [box_kb][box_rows][128], 128-byte swizzled, so that one load brings several
// k-blocks of the same rows; rows past the end read as zero.
inline bool make_kblock_map(CUtensorMap* map, const void* base, long long rows, int K, int box_rows, int box_kb) {
  auto enc = encoder();
  if (enc == nullptr || K % 128 != 0) return false;
  const cuuint64_t dims[3] = {128, static_cast<cuuint64_t>(rows), static_cast<cuuint64_t>(K / 128)};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(K), 128};
  const cuuint32_t box[3] = {128, static_cast<cuuint32_t>(box_rows), static_cast<cuuint32_t>(box_kb)};
  const cuuint32_t estr[3] = {1, 1, 1};
  return enc(map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 3, const_cast<void*>(base), dims, strides, box, estr,
             CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// 3-D map over AITER's preshuffled [N, K] fp8 weights (numerics/quant.hpp: 16x16-byte tiles of 16 rows x
// 16 K, tiles by (n/16, k/16)): dimension 0 is one tile's 256 bytes, 1 the row tiles (16*K bytes apart),
// 2 the 16-byte K chunks (256 bytes apart). A box of (256, box_rows/16, 8) lands in shared memory as
// [8 K chunks][box_rows][16 bytes]: the K-major no-swizzle layout of wgmma (smem_desc_interleave with
// lbo = box_rows * 16, sbo = 128). Needs N % 16 == 0 and K % 16 == 0.
inline bool make_preshuffled_map(CUtensorMap* map, const void* base, int N, int K, int box_rows) {
  auto enc = encoder();
  if (enc == nullptr || N % 16 != 0 || K % 16 != 0 || box_rows % 16 != 0) return false;
  const cuuint64_t dims[3] = {256, static_cast<cuuint64_t>(N / 16), static_cast<cuuint64_t>(K / 16)};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(K) * 16, 256};
  const cuuint32_t box[3] = {256, static_cast<cuuint32_t>(box_rows / 16), 8};
  const cuuint32_t estr[3] = {1, 1, 1};
  return enc(map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 3, const_cast<void*>(base), dims, strides, box, estr,
             CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// Row-major fp32 [rows, cols] (block scales): boxes of box_cols x box_rows, no swizzle, rows and columns past the end
// read as zero. TMA needs the row pitch and the base 16-byte aligned, box_cols * 4 a multiple of 16, and each box
// to start at a 16-byte aligned address (its first column a multiple of 4): one that does not stops the kernel with
// an illegal instruction.
inline bool make_float_map(CUtensorMap* map, const float* base, int rows, int cols, int box_cols, int box_rows) {
  auto enc = encoder();
  if (enc == nullptr || cols % 4 != 0 || box_cols % 4 != 0 || reinterpret_cast<uintptr_t>(base) % 16 != 0) return false;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(cols) * 4};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_cols), static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t estr[2] = {1, 1};
  return enc(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(base), dims, strides, box, estr,
             CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// Row-major bf16 [M, N] output: boxes of 64 columns x 64 rows, 128-byte swizzle (N % 8 == 0).
inline bool make_output_map(CUtensorMap* map, void* base, int M, int N) {
  auto enc = encoder();
  if (enc == nullptr) return false;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(N), static_cast<cuuint64_t>(M)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(N) * 2};
  const cuuint32_t box[2] = {64, 64};
  const cuuint32_t estr[2] = {1, 1};
  return enc(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, base, dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
             CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) ==
         CUDA_SUCCESS;
}

}  // namespace cktune::gpu::tma
#endif  // CKTUNE_CUDA
