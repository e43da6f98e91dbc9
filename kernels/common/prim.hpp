#pragma once
// Block- and device-level parallel primitives: CUB on NVIDIA, rocPRIM on AMD. The one place in the
// project that names cub:: or rocprim::. Kernel translation units (kernels/*/*.cu) include it; host
// code compiled by g++ never does (the CUB / rocPRIM headers are device-compiler headers).
//
// AMD: Debian's librocprim-dev (5.3) headers; clang 19 needs
// -Wno-missing-template-arg-list-after-template-kw for them (scripts/amd_compile_check.sh passes it).
#include "compat.hpp"

#if defined(CKTUNE_HIP)
// rocPRIM 5.3's block_radix_sort.hpp uses rocprim::min before it includes functional.hpp.
#include <rocprim/functional.hpp>
#include <rocprim/block/block_radix_sort.hpp>
#include <rocprim/block/block_scan.hpp>
#include <rocprim/device/device_radix_sort.hpp>
#include <rocprim/types/double_buffer.hpp>
#else
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#endif

namespace cktune::gpu::prim {

// Stable ascending radix sort of (key, value) pairs held by one thread block in a blocked arrangement
// (thread t holds items t*kItems .. t*kItems+kItems-1), on bits [begin_bit, end_bit) of the key; the
// result is in the blocked arrangement too. Equal keys keep their order (LSD radix sort is stable).
// Call __syncthreads() before reusing TempStorage for something else.
template <class Key, class Value, int kThreads, int kItems>
struct BlockRadixSortPairs {
#if defined(CKTUNE_HIP)
  using Impl = rocprim::block_radix_sort<Key, kThreads, kItems, Value>;
  using TempStorage = typename Impl::storage_type;
  __device__ static void sort(Key (&keys)[kItems], Value (&values)[kItems], TempStorage& temp, int begin_bit,
                              int end_bit) {
    Impl().sort(keys, values, temp, static_cast<unsigned>(begin_bit), static_cast<unsigned>(end_bit));
  }
#else
  using Impl = cub::BlockRadixSort<Key, kThreads, kItems, Value>;
  using TempStorage = typename Impl::TempStorage;
  __device__ static void sort(Key (&keys)[kItems], Value (&values)[kItems], TempStorage& temp, int begin_bit,
                              int end_bit) {
    Impl(temp).Sort(keys, values, begin_bit, end_bit);
  }
#endif
};

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

// Device-wide stable ascending radix sort of n (key, value) pairs on bits [begin_bit, end_bit),
// double-buffered: the input is in keys/values; on return keys/values point at the sorted output and
// keys_alt/values_alt at the other buffer (both buffers' contents are overwritten). With
// temp == nullptr only temp_bytes is set (nothing is launched, the pointers are left alone).
// Enqueued on `stream`, no synchronisation.
template <class Key, class Value>
inline ErrorCode device_radix_sort_pairs(void* temp, size_t& temp_bytes, Key*& keys, Key*& keys_alt, Value*& values,
                                         Value*& values_alt, int n, int begin_bit, int end_bit, Stream stream) {
#if defined(CKTUNE_HIP)
  rocprim::double_buffer<Key> kb(keys, keys_alt);
  rocprim::double_buffer<Value> vb(values, values_alt);
  const ErrorCode e = rocprim::radix_sort_pairs(temp, temp_bytes, kb, vb, n, static_cast<unsigned>(begin_bit),
                                                static_cast<unsigned>(end_bit), stream);
  keys = kb.current();
  keys_alt = kb.alternate();
  values = vb.current();
  values_alt = vb.alternate();
#else
  cub::DoubleBuffer<Key> kb(keys, keys_alt);
  cub::DoubleBuffer<Value> vb(values, values_alt);
  const ErrorCode e = cub::DeviceRadixSort::SortPairs(temp, temp_bytes, kb, vb, n, begin_bit, end_bit, stream);
  keys = kb.Current();
  keys_alt = kb.Alternate();
  values = vb.Current();
  values_alt = vb.Alternate();
#endif
  return e;
}

}  // namespace cktune::gpu::prim
