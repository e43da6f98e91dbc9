#include "backends/gpu_backend.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include <fmt/format.h>

#include "cktune/aiter/instances.hpp"
#include "cktune/core/error.hpp"
#include "cktune/core/log.hpp"
#include "cktune/gpu/device.hpp"
#include "cktune/verify/check.hpp"
#include "kernels/common/compat.hpp"
#include "kernels/util/util.hpp"

namespace cktune {

namespace {

// Events around each launch; a spin kernel first lets the host queue the whole batch, so that the host's launch
// costs never show up as kernel time. The spin allows queue_us_per_launch a launch (the backend's, shared by its
// timers): queueing a launch and its two events takes ~5 us on an H200 host, but some batches take longer (in one
// grid tune, 6 of 7,847 batches at 13-67 us a launch, docs/perf.md 2026-12-02), and then the device ran launches the
// host had not queued yet, timing the host's gaps. A batch whose first timed launch had already started by the time
// the host had queued it all is reported as not queued in time (measure() times it again) and the allowance grows;
// otherwise it eases back toward 1.3x what queueing took.
class EventTimer final : public Timer {
 public:
  EventTimer(gpu::GpuStream& stream, int clock_khz, double& queue_us_per_launch)
      : stream_(stream), clock_khz_(clock_khz), allowance_(queue_us_per_launch) {}
  void reserve(int n) override {
    n_ = n;
    while (static_cast<int>(events_.size()) < 2 * n) events_.emplace_back();
    const double spin_us = std::clamp(allowance_ * n + 50.0, 100.0, 50000.0);
    CKTUNE_GPU_CHECK(kernels::util::launch_spin(spin_us, clock_khz_, gpu::as_stream(stream_.native())));
    queued_from_ = std::chrono::steady_clock::now();
  }
  void begin(int i) override { events_[static_cast<size_t>(2 * i)].record(stream_); }
  void end(int i) override { events_[static_cast<size_t>(2 * i + 1)].record(stream_); }
  std::vector<double> collect_us() override {
    std::vector<double> out;
    if (n_ == 0) return out;
    const double queue_us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - queued_from_).count();
    in_time_ = !events_[0].done();  // the first timed launch's start: not reached while the host was queueing
    const double per_launch = queue_us / n_;
    allowance_ = in_time_ ? std::max(0.95 * allowance_, 1.3 * per_launch) : std::max(1.5 * allowance_, 1.3 * per_launch);
    allowance_ = std::clamp(allowance_, GpuBackend::kMinQueueUsPerLaunch, GpuBackend::kMaxQueueUsPerLaunch);
    if (log().should_log(spdlog::level::trace))
      log().trace("timer: {} launches queued in {:.0f} us ({:.1f} a launch){}; the spin allows {:.1f} a launch now", n_,
                  queue_us, per_launch, in_time_ ? "" : ", the device reached them first", allowance_);
    events_[static_cast<size_t>(2 * n_ - 1)].synchronize();
    CKTUNE_GPU_CHECK(gpu::get_last_error());
    for (int i = 0; i < n_; ++i)
      out.push_back(1000.0 * gpu::GpuEvent::elapsed_ms(events_[static_cast<size_t>(2 * i)],
                                                       events_[static_cast<size_t>(2 * i + 1)]));
    return out;
  }
  bool queued_in_time() const override { return in_time_; }

 private:
  gpu::GpuStream& stream_;
  int clock_khz_;
  double& allowance_;
  int n_ = 0;
  bool in_time_ = true;
  std::chrono::steady_clock::time_point queued_from_;
  std::vector<gpu::GpuEvent> events_;
};

}  // namespace

GpuBackend::GpuBackend(int index) {
  std::string why;
  auto gpus = gpu::enumerate_gpus(&why);
  if (index < 0 || index >= static_cast<int>(gpus.size()))
    throw GpuError(fmt::format("GPU {} is not visible ({} device(s){})", index, gpus.size(),
                               why.empty() ? "" : ": " + why),
                   "check CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES and `cktune discover`");
  dev_ = gpus[static_cast<size_t>(index)];
  // Rows are keyed as AITER will look them up: on AMD, CU_NUM (when set) replaces the device's count.
  const int cu = aiter::aiter_cu_num(dev_.gfx, dev_.cu_num, std::getenv("CU_NUM"));
  if (cu != dev_.cu_num)
    log().warn("CU_NUM={} replaces GPU {}'s {} compute units in the cu_num column, as in AITER's lookups", cu, index,
               dev_.cu_num);
  dev_.cu_num = cu;
  gpu::set_device(index);
  auto v = gpu::runtime_versions();
  dev_.backend = "gpu";
  dev_.driver = v.driver_version;
  dev_.runtime = fmt::format("{} {}", v.backend, v.runtime_version);
  sm_ = dev_.compute_major * 10 + dev_.compute_minor;
  // GPU runs: the reference is computed on the host while the GPU waits, so it may cover every row
  // up to 2e9 multiply-adds (a few seconds), else 8-64 sampled rows; up to 32 rotation sets within
  // 16 GB, enough to exceed the L2 twice.
  policy_.reference_macs_budget = 2e9;
  policy_.min_sampled_rows = 8;
  policy_.max_sampled_rows = 64;
  policy_.min_sets = 2;
  policy_.max_sets = 32;
  policy_.set_memory_budget = 16e9;
  stream_ = std::make_unique<gpu::GpuStream>();
}

std::unique_ptr<Timer> GpuBackend::make_timer() {
  return std::make_unique<EventTimer>(*stream_, dev_.sm_clock_khz, queue_us_per_launch_);
}

void GpuBackend::hang() {
  CKTUNE_GPU_CHECK(kernels::util::launch_hang(gpu::as_stream(stream_->native())));
  stream_->synchronize();  // never returns: the watchdog ends the process
  for (;;) {
  }
}

DeviceOutput::DeviceOutput(GpuBackend& backend, std::size_t cells, std::size_t alloc_cells)
    : backend_(backend), cells_(cells), alloc_cells_(std::max(cells, alloc_cells)), buffer_(alloc_cells_ * 2) {}

void DeviceOutput::poison() {
  CKTUNE_GPU_CHECK(kernels::util::launch_fill_u16(data(), alloc_cells_, kPoisonBf16Bits,
                                                  gpu::as_stream(backend_.stream().native())));
}

void DeviceOutput::read(std::vector<std::uint16_t>& host) {
  host.resize(cells_);
  buffer_.copy_to_host(host.data(), cells_ * 2, backend_.stream());  // synchronises: a fault surfaces here
}

std::int64_t DeviceOutput::gather(std::span<const std::int64_t> rows, std::int64_t cols, std::vector<std::uint16_t>& out) {
  if (rows.empty()) {
    read(out);
    return std::count_if(out.begin(), out.end(), [](std::uint16_t v) { return is_poison_bf16(v); });
  }
  const auto s = gpu::as_stream(backend_.stream().native());
  if (count_.size() == 0) count_ = gpu::DeviceBuffer(sizeof(unsigned long long));
  CKTUNE_GPU_CHECK(kernels::util::launch_count_u16(data(), cells_, kPoisonBf16Bits,
                                                   static_cast<unsigned long long*>(count_.data()), s));
  const size_t c = static_cast<size_t>(cols), n = rows.size();
  out.resize(n * c);
  for (size_t i = 0; i < n; ++i) {
    if (rows[i] < 0 || static_cast<size_t>(rows[i] + 1) * c > cells_)
      throw Error(fmt::format("device output: row {} of {} cells is outside its {} cells", rows[i], c, cells_));
    CKTUNE_GPU_CHECK(gpu::rt::memcpy_d2h_async(out.data() + i * c, data() + static_cast<size_t>(rows[i]) * c, c * 2, s));
  }
  unsigned long long unwritten = 0;
  count_.copy_to_host(&unwritten, sizeof unwritten, backend_.stream());  // synchronises
  return static_cast<std::int64_t>(unwritten);
}

CheckResult DeviceOutput::check(const Reference& ref, const Tolerance& tol) {
  if (ref.sampled_rows.empty() || ref.rows * ref.cols != static_cast<std::int64_t>(cells_)) {
    read(host_);
    return ref.check(host_.data(), tol);
  }
  const std::int64_t unwritten = gather(ref.sampled_rows, ref.cols, host_);
  return check_gathered_rows(ref.values.data(), host_.data(), ref.sampled_rows, ref.rows, ref.cols, unwritten, tol);
}

void DeviceOutput::corrupt(FaultKind kind) {
  auto s = gpu::as_stream(backend_.stream().native());
  if (kind == FaultKind::Wrong) {
    CKTUNE_GPU_CHECK(kernels::util::launch_corrupt_bf16(data(), cells_, s));
  } else if (kind == FaultKind::Partial) {
    const size_t keep = cells_ * 3 / 4;
    CKTUNE_GPU_CHECK(kernels::util::launch_fill_u16(data() + keep, cells_ - keep, kPoisonBf16Bits, s));
  }
}

std::unique_ptr<Backend> make_gpu_backend(int device_index) { return std::make_unique<GpuBackend>(device_index); }

}  // namespace cktune
