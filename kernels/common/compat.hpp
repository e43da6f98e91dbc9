#pragma once
// The one header that decides the GPU dialect. Kernels and GPU host code include this and nothing
// vendor-specific: HIP on AMD (hipcc / clang -x hip), CUDA on NVIDIA (nvcc, or g++ with the CUDA
// include path for host-only files under src/gpu/). Names follow HIP's spelling where the two differ
// only by prefix; the wave/warp width is a named constant. docs/arch/gpu.md lists the rules kernels
// follow so that the AMD compile check (scripts/amd_compile_check.sh) stays green.
//
// Dialect: CKTUNE_HIP is set when compiling with a HIP compiler or for a HIP build
// (CKTUNE_WITH_HIP from CMake, __HIP_PLATFORM_AMD__ from hipcc); otherwise CKTUNE_CUDA.
#if defined(__HIP_PLATFORM_AMD__) || defined(__HIPCC__) || defined(CKTUNE_GPU_HIP) || \
    (defined(CKTUNE_WITH_HIP) && CKTUNE_WITH_HIP)
#define CKTUNE_HIP 1
#include <hip/hip_runtime.h>
#else
#define CKTUNE_CUDA 1
#include <cuda_runtime.h>
#endif

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace cktune::gpu {

// Raw runtime handles, as kernels and launchers pass them. The RAII owners are GpuStream / GpuEvent
// in include/cktune/gpu/runtime.hpp (which is usable without the vendor headers).
#if defined(CKTUNE_HIP)
using Stream = hipStream_t;
using Event = hipEvent_t;
using ErrorCode = hipError_t;
using DeviceProp = hipDeviceProp_t;
inline constexpr ErrorCode kSuccess = hipSuccess;
inline constexpr ErrorCode kErrorInvalidValue = hipErrorInvalidValue;
inline constexpr ErrorCode kErrorNotSupported = hipErrorNotSupported;
inline constexpr ErrorCode kErrorNotReady = hipErrorNotReady;
inline const char* error_string(ErrorCode e) { return hipGetErrorString(e); }
inline const char* error_name(ErrorCode e) { return hipGetErrorName(e); }
inline constexpr const char* kRuntimeName = "HIP";
#else
using Stream = cudaStream_t;
using Event = cudaEvent_t;
using ErrorCode = cudaError_t;
using DeviceProp = cudaDeviceProp;
inline constexpr ErrorCode kSuccess = cudaSuccess;
inline constexpr ErrorCode kErrorInvalidValue = cudaErrorInvalidValue;
inline constexpr ErrorCode kErrorNotSupported = cudaErrorNotSupported;
inline constexpr ErrorCode kErrorNotReady = cudaErrorNotReady;
inline const char* error_string(ErrorCode e) { return cudaGetErrorString(e); }
inline const char* error_name(ErrorCode e) { return cudaGetErrorName(e); }
inline constexpr const char* kRuntimeName = "CUDA";
#endif

// The raw handle behind GpuStream::native() / GpuEvent::native() (include/cktune/gpu/runtime.hpp).
inline Stream as_stream(void* native) { return static_cast<Stream>(native); }
inline Event as_event(void* native) { return static_cast<Event>(native); }

// Threads that execute in lock-step: 64 on CDNA (gfx9), 32 on NVIDIA. Never write the literal.
#if defined(CKTUNE_HIP) && (defined(__GFX9__) || !defined(__HIP_DEVICE_COMPILE__))
inline constexpr int kWaveSize = 64;
#else
inline constexpr int kWaveSize = 32;
#endif

// One bit per lane of a wave.
#if defined(CKTUNE_HIP)
using LaneMask = unsigned long long;
#else
using LaneMask = unsigned;
#endif

#if defined(__CUDACC__) || defined(__HIP__)
// Wave-level helpers for device code; every lane of the wave must call the collective ones.
__device__ __forceinline__ int lane_id() { return static_cast<int>(threadIdx.x) % kWaveSize; }
__device__ __forceinline__ LaneMask lanes_below() { return (LaneMask{1} << lane_id()) - 1; }
__device__ __forceinline__ int lane_count(LaneMask m) {
#if defined(CKTUNE_HIP)
  return __popcll(m);
#else
  return __popc(m);
#endif
}
// Orders the shared-memory accesses of the lanes of one wave around it.
__device__ __forceinline__ void wave_sync() {
#if defined(CKTUNE_HIP)
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
#else
  __syncwarp();
#endif
}
// The lanes whose `key` equals this lane's (collective). NVIDIA: one match instruction; AMD: a ballot per
// distinct key in the wave.
__device__ __forceinline__ LaneMask match_any(unsigned key) {
#if defined(CKTUNE_HIP)
  LaneMask left = __ballot(1), mine = 0;
  while (left != 0) {
    const int leader = __ffsll(static_cast<long long>(left)) - 1;
    const unsigned k = static_cast<unsigned>(__shfl(static_cast<int>(key), leader));
    const LaneMask same = __ballot(key == k);
    if (key == k) mine = same;
    left &= ~same;
  }
  return mine;
#else
  return __match_any_sync(0xffffffffu, key);
#endif
}

// Programmatic dependent launch (NVIDIA sm_90+; nothing on AMD, where launches stay serialised). A
// kernel launched with LaunchOpts::overlap_previous may start while the kernel before it in the stream
// is still running, once that kernel's blocks have all called open_next_grid() (or exited). Such a
// kernel calls await_previous_grid() before it touches global memory: it returns when the previous
// grid has completed and its writes are visible. Calling open_next_grid() only after that wait keeps
// at most two grids in flight, and every grid before the previous one complete.
__device__ __forceinline__ void await_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void open_next_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
// The usual entry of such a kernel: wait for the previous grid, then let the next one be scheduled.
__device__ __forceinline__ void follow_previous_grid() {
  await_previous_grid();
  open_next_grid();
}
#endif

// The error of the last launch on this thread (clears it).
inline ErrorCode get_last_error() {
#if defined(CKTUNE_HIP)
  return hipGetLastError();
#else
  return cudaGetLastError();
#endif
}

// Let `kernel` use up to `bytes` of dynamic shared memory (LDS on AMD); needed above 48 KiB on NVIDIA.
template <class Kernel>
inline ErrorCode set_max_dynamic_shared_memory(Kernel* kernel, int bytes) {
#if defined(CKTUNE_HIP)
  return hipFuncSetAttribute(reinterpret_cast<const void*>(kernel), hipFuncAttributeMaxDynamicSharedMemorySize, bytes);
#else
  return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
#endif
}

// set_max_dynamic_shared_memory() where a launch needs it: when `bytes` of dynamic shared memory plus the
// kernel's `static_bytes` pass the 48 KiB every kernel may use, and no earlier call for this kernel (the
// caller's `allowed`, one per kernel, process-wide) raised the limit that far already. Host call, no sync.
template <class Kernel>
inline ErrorCode allow_dynamic_shared_memory(Kernel* kernel, int bytes, std::atomic<int>& allowed, int static_bytes = 0) {
  if (bytes + static_bytes <= 48 * 1024 || bytes <= allowed.load(std::memory_order_relaxed)) return kSuccess;
  const ErrorCode e = set_max_dynamic_shared_memory(kernel, bytes);
  if (e == kSuccess) allowed.store(bytes, std::memory_order_relaxed);
  return e;
}

// Allow thread-block clusters beyond the portable size (NVIDIA: more than 8 CTAs). HIP has no clusters.
template <class Kernel>
inline ErrorCode allow_non_portable_clusters(Kernel* kernel) {
#if defined(CKTUNE_HIP)
  (void)kernel;
  return kErrorNotSupported;
#else
  return cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
#endif
}

// How launch() starts a kernel: thread-block clusters of cluster.x * .y * .z CTAs (NVIDIA sm_90+; HIP
// has none: not supported), and overlap_previous: the kernel may start before the one before it in the
// stream has finished (programmatic dependent launch; the kernel must call await_previous_grid() before
// it touches global memory). Ignored on AMD.
struct LaunchOpts {
  dim3 cluster{1, 1, 1};
  bool overlap_previous = false;
};

// CKTUNE_SERIAL_LAUNCHES=1 in the environment turns overlap_previous off: every kernel then waits for
// the one before it to finish, as without the option (for before/after comparisons, or should a driver
// mishandle dependent launches). Read once per process.
inline bool serial_launches() {
  static const bool serial = [] {
    const char* v = std::getenv("CKTUNE_SERIAL_LAUNCHES");
    return v != nullptr && v[0] == '1';
  }();
  return serial;
}

// Launch `kernel` on grid x block with `smem` bytes of dynamic shared memory, as `opts` says.
template <class... Params, class... Args>
inline ErrorCode launch(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem, Stream stream,
                        const LaunchOpts& opts, Args&&... args) {
#if defined(CKTUNE_HIP)
  if (opts.cluster.x * opts.cluster.y * opts.cluster.z != 1) return kErrorNotSupported;
#if defined(__HIP__)
  kernel<<<grid, block, smem, stream>>>(std::forward<Args>(args)...);
  return hipGetLastError();
#else
  (void)kernel, (void)grid, (void)block, (void)smem, (void)stream;
  ((void)args, ...);
  return kErrorNotSupported;  // host compilers cannot launch HIP kernels
#endif
#else
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cudaLaunchAttribute attr[2];
  unsigned n = 0;
  if (opts.cluster.x * opts.cluster.y * opts.cluster.z != 1) {
    attr[n].id = cudaLaunchAttributeClusterDimension;
    attr[n].val.clusterDim.x = opts.cluster.x;
    attr[n].val.clusterDim.y = opts.cluster.y;
    attr[n].val.clusterDim.z = opts.cluster.z;
    ++n;
  }
  if (opts.overlap_previous && !serial_launches()) {
    attr[n].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[n].val.programmaticStreamSerializationAllowed = 1;
    ++n;
  }
  cfg.attrs = attr;
  cfg.numAttrs = n;
  return cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...);
#endif
}

// How many clusters of `cluster` CTAs of `kernel` (block threads, smem bytes of dynamic shared memory, the limit
// already raised) the current device runs at once; `fallback` when the runtime cannot say. HIP has no clusters.
template <class Kernel>
inline int max_active_clusters(Kernel* kernel, int block, int smem, int cluster, int fallback) {
#if defined(CKTUNE_HIP)
  (void)kernel, (void)block, (void)smem, (void)cluster;
  return fallback;
#else
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(cluster));
  cfg.blockDim = dim3(static_cast<unsigned>(block));
  cfg.dynamicSmemBytes = static_cast<size_t>(smem);
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = static_cast<unsigned>(cluster);
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  int n = 0;
  if (cudaOccupancyMaxActiveClusters(&n, kernel, &cfg) != cudaSuccess || n <= 0) {
    (void)cudaGetLastError();
    return fallback;
  }
  return n;
#endif
}

// Multiprocessors (SMs / CUs) of the current device; `fallback` when the runtime cannot say.
inline int current_device_multiprocessors(int fallback) {
  int dev = 0, v = 0;
#if defined(CKTUNE_HIP)
  if (hipGetDevice(&dev) != hipSuccess ||
      hipDeviceGetAttribute(&v, hipDeviceAttributeMultiprocessorCount, dev) != hipSuccess)
    return fallback;
#else
  if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
    return fallback;
#endif
  return v;
}

#if !defined(CKTUNE_HIP)
// A driver API entry point reached through the runtime, so that libcuda is never linked (nullptr when
// the driver does not have it at `version`).
inline void* driver_entry_point(const char* name, int version) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult q{};
  if (cudaGetDriverEntryPointByVersion(name, &p, static_cast<unsigned>(version), cudaEnableDefault, &q) != cudaSuccess ||
      q != cudaDriverEntryPointSuccess)
    return nullptr;
  return p;
}
#endif

// Runtime entry points the host wrappers in src/gpu/ use: one spelling for both vendors, so the
// wrappers are written once. Thin inline forwards, no logic.
namespace rt {
#if defined(CKTUNE_HIP)
#define CKTUNE_RT(name) hip##name
inline constexpr auto kAttrClockRate = hipDeviceAttributeClockRate;
inline constexpr auto kAttrMemoryClockRate = hipDeviceAttributeMemoryClockRate;
inline constexpr auto kMemcpyHostToDevice = hipMemcpyHostToDevice;
inline constexpr auto kMemcpyDeviceToHost = hipMemcpyDeviceToHost;
inline constexpr auto kMemcpyDeviceToDevice = hipMemcpyDeviceToDevice;
inline constexpr unsigned kStreamNonBlocking = hipStreamNonBlocking;
inline constexpr unsigned kEventDefault = hipEventDefault;
using DeviceAttr = hipDeviceAttribute_t;
#else
#define CKTUNE_RT(name) cuda##name
inline constexpr auto kAttrClockRate = cudaDevAttrClockRate;
inline constexpr auto kAttrMemoryClockRate = cudaDevAttrMemoryClockRate;
inline constexpr auto kMemcpyHostToDevice = cudaMemcpyHostToDevice;
inline constexpr auto kMemcpyDeviceToHost = cudaMemcpyDeviceToHost;
inline constexpr auto kMemcpyDeviceToDevice = cudaMemcpyDeviceToDevice;
inline constexpr unsigned kStreamNonBlocking = cudaStreamNonBlocking;
inline constexpr unsigned kEventDefault = cudaEventDefault;
using DeviceAttr = cudaDeviceAttr;
#endif

inline ErrorCode get_device_count(int* n) { return CKTUNE_RT(GetDeviceCount)(n); }
inline ErrorCode set_device(int d) { return CKTUNE_RT(SetDevice)(d); }
inline ErrorCode get_device(int* d) { return CKTUNE_RT(GetDevice)(d); }
inline ErrorCode get_device_properties(DeviceProp* p, int d) { return CKTUNE_RT(GetDeviceProperties)(p, d); }
inline ErrorCode device_get_attribute(int* v, DeviceAttr a, int d) { return CKTUNE_RT(DeviceGetAttribute)(v, a, d); }
inline ErrorCode device_synchronize() { return CKTUNE_RT(DeviceSynchronize)(); }
inline ErrorCode mem_get_info(size_t* free_bytes, size_t* total_bytes) {
  return CKTUNE_RT(MemGetInfo)(free_bytes, total_bytes);
}
inline ErrorCode driver_get_version(int* v) { return CKTUNE_RT(DriverGetVersion)(v); }
inline ErrorCode runtime_get_version(int* v) { return CKTUNE_RT(RuntimeGetVersion)(v); }
inline ErrorCode device_malloc(void** p, size_t bytes) { return CKTUNE_RT(Malloc)(p, bytes); }
inline ErrorCode device_free(void* p) { return CKTUNE_RT(Free)(p); }
inline ErrorCode memset_async(void* p, int value, size_t bytes, Stream s) {
  return CKTUNE_RT(MemsetAsync)(p, value, bytes, s);
}
inline ErrorCode memcpy_h2d_async(void* dst, const void* src, size_t bytes, Stream s) {
  return CKTUNE_RT(MemcpyAsync)(dst, src, bytes, kMemcpyHostToDevice, s);
}
inline ErrorCode memcpy_d2h_async(void* dst, const void* src, size_t bytes, Stream s) {
  return CKTUNE_RT(MemcpyAsync)(dst, src, bytes, kMemcpyDeviceToHost, s);
}
inline ErrorCode memcpy2d_d2d_async(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                   size_t height, Stream s) {
  return CKTUNE_RT(Memcpy2DAsync)(dst, dpitch, src, spitch, width, height, kMemcpyDeviceToDevice, s);
}
inline ErrorCode memcpy_d2d_async(void* dst, const void* src, size_t bytes, Stream s) {
  return CKTUNE_RT(MemcpyAsync)(dst, src, bytes, kMemcpyDeviceToDevice, s);
}
inline ErrorCode stream_create(Stream* s) { return CKTUNE_RT(StreamCreateWithFlags)(s, kStreamNonBlocking); }
inline ErrorCode stream_destroy(Stream s) { return CKTUNE_RT(StreamDestroy)(s); }
inline ErrorCode stream_synchronize(Stream s) { return CKTUNE_RT(StreamSynchronize)(s); }
inline ErrorCode event_create(Event* e) { return CKTUNE_RT(EventCreateWithFlags)(e, kEventDefault); }
inline ErrorCode event_destroy(Event e) { return CKTUNE_RT(EventDestroy)(e); }
inline ErrorCode event_record(Event e, Stream s) { return CKTUNE_RT(EventRecord)(e, s); }
inline ErrorCode event_synchronize(Event e) { return CKTUNE_RT(EventSynchronize)(e); }
inline ErrorCode event_query(Event e) { return CKTUNE_RT(EventQuery)(e); }  // kErrorNotReady: not yet
inline ErrorCode event_elapsed_ms(float* ms, Event start, Event end) {
  return CKTUNE_RT(EventElapsedTime)(ms, start, end);
}
inline ErrorCode device_get_pci_bus_id(char* buf, int len, int d) { return CKTUNE_RT(DeviceGetPCIBusId)(buf, len, d); }
// The device's 16-byte UUID (CUDA: the properties' uuid; HIP: hipDeviceGetUuid).
inline ErrorCode device_uuid(unsigned char (&out)[16], const DeviceProp& p, int d) {
#if defined(CKTUNE_HIP)
  (void)p;
  hipDevice_t dev{};
  if (ErrorCode e = hipDeviceGet(&dev, d); e != hipSuccess) return e;
  hipUUID u{};
  if (ErrorCode e = hipDeviceGetUuid(&u, dev); e != hipSuccess) return e;
  std::memcpy(out, u.bytes, sizeof out);
  return hipSuccess;
#else
  (void)d;
  std::memcpy(out, p.uuid.bytes, sizeof out);
  return cudaSuccess;
#endif
}
#undef CKTUNE_RT
}  // namespace rt

}  // namespace cktune::gpu
