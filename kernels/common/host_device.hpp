#pragma once
// CKTUNE_HD: a function both the host and the GPU compile (inline on the host alone). No vendor header,
// so that host-only code and the unit tests can include the headers that use it.
#if defined(__CUDACC__) || defined(__HIPCC__)
#define CKTUNE_HD __host__ __device__ __forceinline__
#else
#define CKTUNE_HD inline
#endif
