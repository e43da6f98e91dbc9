#pragma once
// The GPU backend: one GPU as a device (its description, a stream, GPU-event timing fronted by a spin
// kernel, the policy numbers for GPU runs) and the device-memory output GPU family units use.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "cktune/engine/backend.hpp"
#include "cktune/engine/workload.hpp"
#include "cktune/gpu/runtime.hpp"

namespace cktune {

class GpuBackend final : public Backend {
 public:
  explicit GpuBackend(int index);
  BackendKind kind() const override { return BackendKind::Gpu; }
  const DeviceInfo& device() const override { return dev_; }
  const DevicePolicy& policy() const override { return policy_; }
  std::unique_ptr<Timer> make_timer() override;
  std::string_view timer_name() const override { return "events"; }
  [[noreturn]] void hang() override;

  gpu::GpuStream& stream() { return *stream_; }
  int sm() const { return sm_; }  // compute capability major*10+minor (0 on AMD)

  // The timer's spin lasts this long a launch to queue (EventTimer): at least kMinQueueUsPerLaunch, raised when the
  // device reached a batch before the host had queued it, eased back toward what queueing takes.
  static constexpr double kMinQueueUsPerLaunch = 12.0;
  static constexpr double kMaxQueueUsPerLaunch = 400.0;

 private:
  DeviceInfo dev_;
  DevicePolicy policy_;
  int sm_ = 0;
  double queue_us_per_launch_ = kMinQueueUsPerLaunch;
  std::unique_ptr<gpu::GpuStream> stream_;
};

// A bf16 [rows, cols] output in device memory (rows may be padded: `alloc_cells` >= the cells read).
class DeviceOutput final : public OutputBuffer {
 public:
  DeviceOutput(GpuBackend& backend, std::size_t cells, std::size_t alloc_cells);
  void poison() override;
  void read(std::vector<std::uint16_t>& host) override;
  void corrupt(FaultKind kind) override;
  // Sampled references: unwritten cells are counted on the device and only the sampled rows come back.
  CheckResult check(const Reference& ref, const Tolerance& tol) override;
  // Brings back the listed rows of `cols` cells (in their order; none listed: the whole buffer) and
  // returns the poison count over the whole buffer, counted on the device when rows are listed.
  std::int64_t gather(std::span<const std::int64_t> rows, std::int64_t cols, std::vector<std::uint16_t>& out);
  std::uint16_t* data() { return buffer_.as<std::uint16_t>(); }

 private:
  GpuBackend& backend_;
  std::size_t cells_, alloc_cells_;
  gpu::DeviceBuffer buffer_;
  gpu::DeviceBuffer count_;         // the device-side unwritten count
  std::vector<std::uint16_t> host_;  // reused between checks (a fresh vector per check costs page faults)
};

std::unique_ptr<Backend> make_gpu_backend(int device_index);

}  // namespace cktune
