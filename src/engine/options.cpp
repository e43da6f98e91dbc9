#include "cktune/engine/options.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/gpu/device.hpp"

namespace cktune {

namespace {

void require(bool ok, std::string_view option, double value, std::string_view rule) {
  if (!ok) throw Error(fmt::format("{} {} is out of range: it must be {}", option, value, rule),
                       fmt::format("see `cktune help` for {}", option));
}

}  // namespace

void MeasureOptions::validate() const {
  auto finite = [](double v) { return std::isfinite(v); };
  require(device == "auto" || device == "cpu" || device == "gpu", "--device", 0, "auto, cpu or gpu");
  require(mp >= 1 && mp <= 1024, "--mp", mp, "a whole number from 1 to 1024");
  require(protocol.warmup >= 0 && protocol.warmup <= 100000, "--warmup", protocol.warmup, "from 0 to 100000");
  require(protocol.iters >= 1 && protocol.iters <= 10000000, "--iters", protocol.iters, "from 1 to 10000000");
  require(finite(protocol.min_time_ms) && protocol.min_time_ms >= 0 && protocol.min_time_ms <= 600000,
          "--min-time-ms", protocol.min_time_ms, "a number of milliseconds from 0 to 600000");
  require(protocol.rotate >= 0 && protocol.rotate <= 1024, "--rotate", protocol.rotate, "from 0 (automatic) to 1024");
  require(protocol.settle_ms < 0 ? protocol.settle_ms == -1 : (finite(protocol.settle_ms) && protocol.settle_ms <= 60000),
          "--settle-ms", protocol.settle_ms, "a number of milliseconds from 0 (off) to 60000");
  require(err_ratio < 0 ? err_ratio == -1 : (finite(err_ratio) && err_ratio <= 1), "--errRatio", err_ratio,
          "a fraction from 0 to 1");
  require(finite(max_row_err_ratio) && max_row_err_ratio >= 0 && max_row_err_ratio <= 1, "--max-row-errRatio",
          max_row_err_ratio, "a fraction from 0 to 1");
  require(finite(timeout_s) && timeout_s > 0, "--timeout", timeout_s, "a positive number of seconds");
  require(finite(prepare_timeout_s) && prepare_timeout_s > 0, "--prepare-timeout", prepare_timeout_s,
          "a positive number of seconds");
  require(stall_timeout_s < 0 ? stall_timeout_s == -1 : finite(stall_timeout_s), "--stall-timeout", stall_timeout_s,
          "a number of seconds (0 = off)");
  std::set<int> seen;
  for (int g : gpus) {
    require(g >= 0, "--gpus", g, "device indices of 0 or more");
    if (!seen.insert(g).second)
      throw Error(fmt::format("--gpus names device {} twice", g), "list each GPU once, e.g. --gpus 0,1");
  }
}

double MeasureOptions::err_limit(Family family) const {
  return err_ratio >= 0 ? err_ratio : (spec(family).is_moe ? 0.1 : 0.05);
}

DeviceChoice choose_devices(const MeasureOptions& o) {
  DeviceChoice c;
  const bool gpu_build = gpu::backend_name() != "none";
  std::string why_none;
  const int visible = gpu_build ? static_cast<int>(gpu::enumerate_gpus(&why_none).size()) : 0;
  if (o.device == "auto") {
    if (gpu_build && visible > 0) {
      c.backend = BackendKind::Gpu;
      c.why = fmt::format("auto: {} GPU(s) visible", visible);
    } else {
      c.backend = BackendKind::Cpu;
      c.why = gpu_build ? fmt::format("auto: no GPU visible ({})", why_none.empty() ? "none found" : why_none)
                        : "auto: this build has no GPU backend";
    }
  } else {
    c.backend = o.device == "gpu" ? BackendKind::Gpu : BackendKind::Cpu;
    c.why = "--device " + o.device;
  }
  if (c.backend == BackendKind::Cpu) {
    if (!o.gpus.empty()) throw Error("--gpus needs --device gpu", "drop --gpus, or add --device gpu");
    for (int i = 0; i < o.mp; ++i) c.indices.push_back(i);
    return c;
  }
  if (!gpu_build)
    throw Error("--device gpu: this cktune was built without a GPU backend",
                "rebuild with -DCKTUNE_GPU=cuda (or hip), or use --device cpu");
  if (visible == 0)
    throw Error(fmt::format("--device gpu: no GPU is visible ({})", why_none.empty() ? "none found" : why_none),
                "check the driver and CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES (`cktune discover`), or use --device cpu");
  if (!o.gpus.empty()) {
    for (int g : o.gpus)
      if (g >= visible)
        throw Error(fmt::format("--gpus names device {}, but only {} GPU(s) are visible (0..{})", g, visible, visible - 1),
                    "see `cktune discover`");
    c.indices = o.gpus;
  } else {
    if (o.mp > visible)
      throw Error(fmt::format("--mp {} asks for more workers than the {} visible GPU(s)", o.mp, visible),
                  fmt::format("use --mp {} or fewer (one worker per GPU)", visible));
    for (int i = 0; i < o.mp; ++i) c.indices.push_back(i);
  }
  return c;
}

std::vector<WorkerSpec> worker_specs(const DeviceChoice& choice) {
  std::vector<WorkerSpec> w;
  for (int i : choice.indices) w.push_back({choice.backend, i});
  return w;
}

PoolOptions pool_options(const MeasureOptions& o) {
  PoolOptions p;
  p.exe = o.exe;
  p.candidate_timeout_s = o.timeout_s;
  p.prepare_timeout_s = o.prepare_timeout_s;
  p.stall_timeout_s = o.stall_timeout_s;
  for (int i = 0; i < o.verbosity; ++i) p.worker_args.push_back("-v");
  return p;
}

std::string_view timer_name_for(const DeviceInfo& device) {
  return device.backend == "gpu" ? "events" : "steady_clock";
}

double settle_ms_for(const Protocol& protocol, std::string_view timer_name) {
  // Settling is for a GPU's clocks (the events timer); the CPU's timing does not need it.
  if (protocol.settle_ms >= 0) return protocol.settle_ms;
  return timer_name == "events" ? kDefaultGpuSettleMs : 0.0;
}

double shape_cost(const ProblemKey& k) { return k.flops() + 64.0 * k.min_bytes(); }

std::vector<size_t> run_order(const std::vector<ProblemKey>& keys) {
  std::vector<size_t> order(keys.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return shape_cost(keys[a]) > shape_cost(keys[b]); });
  if (order.size() > 1) std::rotate(order.begin(), order.end() - 1, order.end());
  return order;
}

Job make_job(int id, const ProblemKey& key, std::vector<std::string> candidates, const MeasureOptions& o,
             std::string_view timer_name) {
  Job j;
  j.id = id;
  j.key = key;
  j.candidates = std::move(candidates);
  j.seed = o.protocol.seed;
  j.protocol = o.protocol;
  j.protocol.timer = std::string(timer_name);
  j.protocol.settle_ms = settle_ms_for(o.protocol, timer_name);
  j.tolerance.max_err_ratio = o.err_limit(key.family);
  j.tolerance.max_row_err_ratio = o.max_row_err_ratio;
  return j;
}

}  // namespace cktune
