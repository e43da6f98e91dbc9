#pragma once
// The one header that decides the GPU dialect. Kernels and GPU host code include this and nothing
// vendor-specific: HIP on AMD (hipcc / clang -x hip), CUDA on NVIDIA (nvcc). Names follow HIP's
// spelling where the two differ only by prefix; the wave/warp width is a named constant.
#if defined(__HIP_PLATFORM_AMD__) || defined(__HIPCC__) || defined(CKTUNE_GPU_HIP)
#define CKTUNE_HIP 1
#include <hip/hip_runtime.h>
#else
#define CKTUNE_CUDA 1
#include <cuda_runtime.h>
#endif

namespace cktune::gpu {

#if defined(CKTUNE_HIP)
using Stream = hipStream_t;
using Event = hipEvent_t;
using ErrorCode = hipError_t;
inline constexpr ErrorCode kSuccess = hipSuccess;
inline const char* error_string(ErrorCode e) { return hipGetErrorString(e); }
#else
using Stream = cudaStream_t;
using Event = cudaEvent_t;
using ErrorCode = cudaError_t;
inline constexpr ErrorCode kSuccess = cudaSuccess;
inline const char* error_string(ErrorCode e) { return cudaGetErrorString(e); }
#endif

// Threads that execute in lock-step: 64 on CDNA (gfx9), 32 on NVIDIA. Never write the literal.
#if defined(CKTUNE_HIP) && (defined(__GFX9__) || !defined(__HIP_DEVICE_COMPILE__))
inline constexpr int kWaveSize = 64;
#else
inline constexpr int kWaveSize = 32;
#endif

}  // namespace cktune::gpu
