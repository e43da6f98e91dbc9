#pragma once
// Block-level parallel primitives: CUB on NVIDIA, rocPRIM on AMD. The one place in the
// project that names cub:: or rocprim::. Kernel translation units (kernels/*/*.cu) include it; host
// code compiled by g++ never does (the CUB / rocPRIM headers are device-compiler headers).
//
// AMD: Debian's librocprim-dev (5.3) headers; clang 19 needs
// -Wno-missing-template-arg-list-after-template-kw for them (scripts/amd_compile_check.sh passes it).
#include "compat.hpp"

#if defined(CKTUNE_HIP)
#include <rocprim/functional.hpp>
#include <rocprim/block/block_scan.hpp>
#else
#include <cub/block/block_scan.cuh>
#endif

namespace cktune::gpu::prim {

// Block-wide exclusive prefix sum of one value per thread: `out` = sum over lower threads, `total` =
// sum over the block (every thread gets it). Call __syncthreads() before reusing TempStorage.
template <class T, int kThreads>
struct BlockExclusiveSum {
#if defined(CKTUNE_HIP)
  using Impl = rocprim::block_scan<T, kThreads>;
  using TempStorage = typename Impl::storage_type;
  __device__ static void run(T in, T& out, T& total, TempStorage& temp) {
    Impl().exclusive_scan(in, out, T(0), total, temp, rocprim::plus<T>());
  }
#else
  using Impl = cub::BlockScan<T, kThreads>;
  using TempStorage = typename Impl::TempStorage;
  __device__ static void run(T in, T& out, T& total, TempStorage& temp) { Impl(temp).ExclusiveSum(in, out, total); }
#endif
};

}  // namespace cktune::gpu::prim
