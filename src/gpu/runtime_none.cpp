// device.hpp / runtime.hpp for a build without a GPU backend (CKTUNE_GPU=off): the answers are real
// ("no device here, and why"), and anything that would need a device throws GpuError with that reason.
#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/gpu/device.hpp"
#include "cktune/gpu/runtime.hpp"

namespace cktune::gpu {

namespace {
constexpr const char* kNoBackend = "this build has no GPU backend";
constexpr const char* kHint = "rebuild with -DCKTUNE_GPU=cuda (or hip), or use the cpu backend";
[[noreturn]] void no_backend(const char* what) { throw GpuError(fmt::format("{}: {}", what, kNoBackend), kHint); }
}  // namespace

namespace detail {
void throw_gpu_error(int code, const char* expr, const char* file, int line) {
  throw GpuError(fmt::format("GPU error {} in `{}` at {}:{} ({})", code, expr, file, line, kNoBackend), kHint);
}
}  // namespace detail

std::string_view backend_name() { return "none"; }
int device_count() { return 0; }
std::vector<DeviceInfo> enumerate_gpus(std::string* why_empty, bool /*with_free_memory*/) {
  if (why_empty) *why_empty = kNoBackend;
  return {};
}
RuntimeVersions runtime_versions() {
  RuntimeVersions v;
  v.backend = "none";
  v.error = kNoBackend;
  return v;
}
void set_device(int /*device*/) { no_backend("set_device"); }

GpuStream::GpuStream() { no_backend("creating a GPU stream"); }
GpuStream::~GpuStream() = default;
GpuStream& GpuStream::operator=(GpuStream&& other) noexcept {
  handle_ = other.handle_;
  other.handle_ = nullptr;
  return *this;
}
void GpuStream::synchronize() const { no_backend("stream synchronize"); }

GpuEvent::GpuEvent() { no_backend("creating a GPU event"); }
GpuEvent::~GpuEvent() = default;
GpuEvent& GpuEvent::operator=(GpuEvent&& other) noexcept {
  handle_ = other.handle_;
  other.handle_ = nullptr;
  return *this;
}
void GpuEvent::record(const GpuStream&) { no_backend("event record"); }
void GpuEvent::synchronize() const { no_backend("event synchronize"); }
bool GpuEvent::done() const { no_backend("event query"); }
float GpuEvent::elapsed_ms(const GpuEvent&, const GpuEvent&) { no_backend("event elapsed time"); }

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(0) {
  if (bytes != 0) no_backend("allocating device memory");
}
DeviceBuffer::~DeviceBuffer() = default;
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  ptr_ = other.ptr_;
  bytes_ = other.bytes_;
  other.ptr_ = nullptr;
  other.bytes_ = 0;
  return *this;
}
void DeviceBuffer::check_range(std::size_t, std::size_t) const {}
void DeviceBuffer::memset(int, const GpuStream&) { no_backend("device memset"); }
void DeviceBuffer::memset_async(int, const GpuStream&) { no_backend("device memset"); }
void DeviceBuffer::copy_from_host(const void*, std::size_t, const GpuStream&, std::size_t) { no_backend("copy to device"); }
void DeviceBuffer::copy_from_host_async(const void*, std::size_t, const GpuStream&, std::size_t) {
  no_backend("copy to device");
}
void DeviceBuffer::copy_to_host(void*, std::size_t, const GpuStream&, std::size_t) const { no_backend("copy to host"); }
void DeviceBuffer::copy_from_device_async(const DeviceBuffer&, const GpuStream&) { no_backend("device copy"); }

double GpuTimer::elapsed_us() const { no_backend("GPU timer"); }
void device_synchronize() { no_backend("device synchronize"); }

}  // namespace cktune::gpu
