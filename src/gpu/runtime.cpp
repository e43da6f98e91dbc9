// The GPU runtime behind include/cktune/gpu/{device,runtime}.hpp, written once for CUDA and HIP
// through the spellings in kernels/common/compat.hpp. Compiled only when CKTUNE_GPU is cuda or hip.
#include <cstring>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/gpu/device.hpp"
#include "cktune/gpu/runtime.hpp"
#include "kernels/common/compat.hpp"

namespace cktune::gpu {

namespace detail {
void throw_gpu_error(int code, const char* expr, const char* file, int line) {
  auto e = static_cast<ErrorCode>(code);
  // Clear a non-sticky error so that the next launch check does not report this one again.
  (void)get_last_error();
  throw GpuError(fmt::format("{} error {} ({}: {}) in `{}` at {}:{}", kRuntimeName, code, error_name(e),
                             error_string(e), expr, file, line),
                 "check the device with nvidia-smi / rocm-smi and the *_VISIBLE_DEVICES variables");
}
}  // namespace detail

namespace {
constexpr bool kIsHip =
#if defined(CKTUNE_HIP)
    true;
#else
    false;
#endif

std::string describe(ErrorCode e) { return fmt::format("{} ({})", error_string(e), error_name(e)); }
}  // namespace

std::string_view backend_name() { return kIsHip ? "hip" : "cuda"; }

int device_count() {
  int n = 0;
  if (rt::get_device_count(&n) != kSuccess) {
    (void)get_last_error();  // a missing driver is an answer here, not a sticky error for later calls
    return 0;
  }
  return n;
}

void set_device(int device) { CKTUNE_GPU_CHECK(rt::set_device(device)); }

RuntimeVersions runtime_versions() {
  RuntimeVersions v;
  v.backend = std::string(backend_name());
  int runtime = 0, driver = 0;
  if (auto e = rt::runtime_get_version(&runtime); e == kSuccess) {
    v.runtime_version = format_runtime_version(runtime, kIsHip);
  } else {
    v.error = "runtime version: " + describe(e);
  }
  if (auto e = rt::driver_get_version(&driver); e == kSuccess) {
    // 0 means no driver is installed.
    v.driver_version = format_runtime_version(driver, kIsHip);
    if (driver == 0 && v.error.empty()) v.error = "no GPU driver is installed";
  } else if (v.error.empty()) {
    v.error = "driver version: " + describe(e);
  }
  return v;
}

namespace {
int attribute(rt::DeviceAttr a, int device) {
  int value = 0;
  if (rt::device_get_attribute(&value, a, device) != kSuccess) {
    (void)get_last_error();
    return 0;
  }
  return value;
}
}  // namespace

std::vector<DeviceInfo> enumerate_gpus(std::string* why_empty, bool with_free_memory) {
  std::vector<DeviceInfo> out;
  int n = 0;
  if (auto e = rt::get_device_count(&n); e != kSuccess) {
    (void)get_last_error();
    if (why_empty) *why_empty = describe(e);
    return out;
  }
  if (n == 0) {
    if (why_empty) *why_empty = fmt::format("the {} runtime reports no device", kRuntimeName);
    return out;
  }
  int previous = 0;
  (void)rt::get_device(&previous);
  for (int d = 0; d < n; ++d) {
    DeviceProp p;
    std::memset(&p, 0, sizeof p);
    CKTUNE_GPU_CHECK(rt::get_device_properties(&p, d));
    DeviceInfo info;
    info.backend = "gpu";
    info.index = d;
    info.name = p.name;
#if defined(CKTUNE_HIP)
    info.arch_full = p.gcnArchName;
    info.gfx = normalize_arch(info.arch_full);
#else
    info.compute_major = p.major;
    info.compute_minor = p.minor;
    info.gfx = sm_arch(p.major, p.minor);
    info.arch_full = info.gfx;
#endif
    info.cu_num = p.multiProcessorCount;
    info.memory_total_bytes = p.totalGlobalMem;
    info.sm_clock_khz = attribute(rt::kAttrClockRate, d);
    info.memory_clock_khz = attribute(rt::kAttrMemoryClockRate, d);
    info.memory_bus_width_bits = p.memoryBusWidth;
    info.l2_bytes = static_cast<std::uint64_t>(p.l2CacheSize);
#if defined(CKTUNE_HIP)
    info.shared_memory_per_block_optin = p.sharedMemPerBlock;  // LDS per workgroup: AMD has no opt-in step
#else
    info.shared_memory_per_block_optin = p.sharedMemPerBlockOptin;
#endif
    unsigned char uuid[16] = {};
    if (rt::device_uuid(uuid, p, d) == kSuccess) {
      info.uuid = format_gpu_uuid(uuid);
    } else {
      (void)get_last_error();
    }
    char bus[32] = {};
    if (rt::device_get_pci_bus_id(bus, sizeof bus, d) == kSuccess) {
      info.pci_bus_id = normalize_pci_bus_id(bus);
    } else {
      (void)get_last_error();
    }
    if (with_free_memory && rt::set_device(d) == kSuccess) {
      size_t free_bytes = 0, total_bytes = 0;
      if (rt::mem_get_info(&free_bytes, &total_bytes) == kSuccess) {
        info.memory_free_bytes = free_bytes;
      } else {
        (void)get_last_error();
      }
    }
    out.push_back(std::move(info));
  }
  if (with_free_memory) (void)rt::set_device(previous);
  return out;
}

// --- RAII resources ---

GpuStream::GpuStream() {
  Stream s = nullptr;
  CKTUNE_GPU_CHECK(rt::stream_create(&s));
  handle_ = s;
}
GpuStream::~GpuStream() {
  if (handle_) (void)rt::stream_destroy(as_stream(handle_));  // destructors must not throw
}
GpuStream& GpuStream::operator=(GpuStream&& other) noexcept {
  if (this != &other) {
    if (handle_) (void)rt::stream_destroy(as_stream(handle_));
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}
void GpuStream::synchronize() const { CKTUNE_GPU_CHECK(rt::stream_synchronize(as_stream(handle_))); }

GpuEvent::GpuEvent() {
  Event e = nullptr;
  CKTUNE_GPU_CHECK(rt::event_create(&e));
  handle_ = e;
}
GpuEvent::~GpuEvent() {
  if (handle_) (void)rt::event_destroy(as_event(handle_));
}
GpuEvent& GpuEvent::operator=(GpuEvent&& other) noexcept {
  if (this != &other) {
    if (handle_) (void)rt::event_destroy(as_event(handle_));
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}
void GpuEvent::record(const GpuStream& stream) {
  CKTUNE_GPU_CHECK(rt::event_record(as_event(handle_), as_stream(stream.native())));
}
void GpuEvent::synchronize() const { CKTUNE_GPU_CHECK(rt::event_synchronize(as_event(handle_))); }
bool GpuEvent::done() const {
  const ErrorCode e = rt::event_query(as_event(handle_));
  if (e == kErrorNotReady) {
    (void)get_last_error();  // an answer, not an error for later calls
    return false;
  }
  CKTUNE_GPU_CHECK(e);
  return true;
}
float GpuEvent::elapsed_ms(const GpuEvent& start, const GpuEvent& end) {
  float ms = 0.0f;
  CKTUNE_GPU_CHECK(rt::event_elapsed_ms(&ms, as_event(start.handle_), as_event(end.handle_)));
  return ms;
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  if (bytes == 0) return;
  CKTUNE_GPU_CHECK(rt::device_malloc(&ptr_, bytes));
}
DeviceBuffer::~DeviceBuffer() {
  if (ptr_) (void)rt::device_free(ptr_);
}
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (ptr_) (void)rt::device_free(ptr_);
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}
void DeviceBuffer::check_range(std::size_t bytes, std::size_t offset) const {
  if (offset > bytes_ || bytes > bytes_ - offset) {
    throw Error(fmt::format("device copy of {} bytes at offset {} exceeds the buffer of {} bytes", bytes, offset,
                            bytes_));
  }
}
void DeviceBuffer::memset_async(int byte_value, const GpuStream& stream) {
  if (bytes_ == 0) return;
  CKTUNE_GPU_CHECK(rt::memset_async(ptr_, byte_value, bytes_, as_stream(stream.native())));
}
void DeviceBuffer::memset(int byte_value, const GpuStream& stream) {
  memset_async(byte_value, stream);
  stream.synchronize();
}
void DeviceBuffer::copy_from_host_async(const void* src, std::size_t bytes, const GpuStream& stream,
                                        std::size_t offset) {
  check_range(bytes, offset);
  if (bytes == 0) return;
  CKTUNE_GPU_CHECK(
      rt::memcpy_h2d_async(static_cast<char*>(ptr_) + offset, src, bytes, as_stream(stream.native())));
}
void DeviceBuffer::copy_from_host(const void* src, std::size_t bytes, const GpuStream& stream, std::size_t offset) {
  copy_from_host_async(src, bytes, stream, offset);
  stream.synchronize();  // the host buffer may be freed as soon as we return
}
void DeviceBuffer::copy_to_host(void* dst, std::size_t bytes, const GpuStream& stream, std::size_t offset) const {
  check_range(bytes, offset);
  if (bytes == 0) return;
  CKTUNE_GPU_CHECK(rt::memcpy_d2h_async(dst, static_cast<const char*>(ptr_) + offset, bytes,
                                        as_stream(stream.native())));
  stream.synchronize();
}
void DeviceBuffer::copy_from_device_async(const DeviceBuffer& src, const GpuStream& stream) {
  check_range(src.bytes_, 0);
  if (src.bytes_ == 0) return;
  CKTUNE_GPU_CHECK(rt::memcpy_d2d_async(ptr_, src.ptr_, src.bytes_, as_stream(stream.native())));
}

double GpuTimer::elapsed_us() const {
  stop_.synchronize();
  return static_cast<double>(GpuEvent::elapsed_ms(start_, stop_)) * 1000.0;
}

void device_synchronize() { CKTUNE_GPU_CHECK(rt::device_synchronize()); }

}  // namespace cktune::gpu
