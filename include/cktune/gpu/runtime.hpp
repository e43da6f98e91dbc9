#pragma once
// GPU resources as small move-only RAII types, and the one check macro every runtime call goes
// through. Usable from any translation unit (no vendor headers here: handles are opaque); the
// vendor calls are in src/gpu/runtime.cpp. Kernel launchers get the raw handle with
// gpu::as_stream(stream.native()) from kernels/common/compat.hpp.
//
// In a build without a GPU backend every constructor that needs a device throws GpuError
// ("this build has no GPU backend"), so callers check device_count() first.
#include <cstddef>
#include <cstdint>

#include "cktune/core/error.hpp"
#include "cktune/gpu/device.hpp"

namespace cktune::gpu {

namespace detail {
// Throws GpuError: "<runtime> error <code> (<name>: <text>) in `<expr>` at <file>:<line>".
[[noreturn]] void throw_gpu_error(int code, const char* expr, const char* file, int line);
inline void check_status(int code, const char* expr, const char* file, int line) {
  if (code != 0) throw_gpu_error(code, expr, file, line);  // cudaSuccess == hipSuccess == 0
}
}  // namespace detail

// Wrap every runtime call: CKTUNE_GPU_CHECK(cudaMalloc(&p, n)) or CKTUNE_GPU_CHECK(launch(...)).
#define CKTUNE_GPU_CHECK(expr) \
  ::cktune::gpu::detail::check_status(static_cast<int>(expr), #expr, __FILE__, __LINE__)

// A stream this object creates (non-blocking) and destroys.
class GpuStream {
 public:
  GpuStream();
  ~GpuStream();
  GpuStream(GpuStream&& other) noexcept : handle_(other.handle_) { other.handle_ = nullptr; }
  GpuStream& operator=(GpuStream&& other) noexcept;
  GpuStream(const GpuStream&) = delete;
  GpuStream& operator=(const GpuStream&) = delete;

  void synchronize() const;
  void* native() const { return handle_; }  // cudaStream_t / hipStream_t

 private:
  void* handle_ = nullptr;
};

class GpuEvent {
 public:
  GpuEvent();
  ~GpuEvent();
  GpuEvent(GpuEvent&& other) noexcept : handle_(other.handle_) { other.handle_ = nullptr; }
  GpuEvent& operator=(GpuEvent&& other) noexcept;
  GpuEvent(const GpuEvent&) = delete;
  GpuEvent& operator=(const GpuEvent&) = delete;

  void record(const GpuStream& stream);
  void synchronize() const;
  // Whether the work the record follows has completed; never waits.
  bool done() const;
  void* native() const { return handle_; }

  // Milliseconds between two recorded events (both must have completed; synchronize `end` first).
  static float elapsed_ms(const GpuEvent& start, const GpuEvent& end);

 private:
  void* handle_ = nullptr;
};

// Device memory owned by this object. Copies and memsets go on `stream` and are synchronous with
// respect to the host unless the name ends in _async.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept : ptr_(other.ptr_), bytes_(other.bytes_) {
    other.ptr_ = nullptr;
    other.bytes_ = 0;
  }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() const { return ptr_; }
  template <class T>
  T* as() const { return static_cast<T*>(ptr_); }
  std::size_t size() const { return bytes_; }
  bool empty() const { return bytes_ == 0; }

  void memset(int byte_value, const GpuStream& stream);
  void memset_async(int byte_value, const GpuStream& stream);
  // Copy `bytes` from host memory into the buffer at `offset`. Throws Error when out of range.
  void copy_from_host(const void* src, std::size_t bytes, const GpuStream& stream, std::size_t offset = 0);
  void copy_from_host_async(const void* src, std::size_t bytes, const GpuStream& stream, std::size_t offset = 0);
  void copy_to_host(void* dst, std::size_t bytes, const GpuStream& stream, std::size_t offset = 0) const;
  void copy_from_device_async(const DeviceBuffer& src, const GpuStream& stream);

 private:
  void check_range(std::size_t bytes, std::size_t offset) const;
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// Events around a region of work on one stream: start(), enqueue, stop(), elapsed_us().
class GpuTimer {
 public:
  explicit GpuTimer(const GpuStream& stream) : stream_(&stream) {}
  void start() { start_.record(*stream_); }
  void stop() { stop_.record(*stream_); }
  // Waits for the stop event, then returns the time between the two events in microseconds.
  double elapsed_us() const;

 private:
  const GpuStream* stream_;
  GpuEvent start_;
  GpuEvent stop_;
};

// Block the host until all work on the current device is done.
void device_synchronize();

}  // namespace cktune::gpu
