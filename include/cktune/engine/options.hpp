#pragma once
// What bench and tune share: where to run (device, workers), the timing protocol, the verification
// limits and the watchdog. One struct, one set of range checks, one way to build a job from them.
#include <string>
#include <string_view>
#include <vector>

#include "cktune/engine/job.hpp"
#include "cktune/engine/pool.hpp"

namespace cktune {

struct MeasureOptions {
  std::string device = "auto";      // --device auto|cpu|gpu (auto: the GPU when built with one and one is visible)
  int mp = 1;                       // --mp: worker processes (one per GPU)
  std::vector<int> gpus;            // --gpus 0,2,5 (device indices as this process sees them; overrides --mp)
  Protocol protocol;                // --warmup, --iters, --min-time-ms, --rotate, --seed
  double err_ratio = -1;            // --errRatio; < 0: the family's default (0.05 GEMM, 0.1 MoE)
  double max_row_err_ratio = 0.25;  // --max-row-errRatio: any single row beyond this fails
  double timeout_s = 600;           // --timeout: per candidate, from its first launch
  double prepare_timeout_s = 1800;  // --prepare-timeout: input generation and reference
  double stall_timeout_s = -1;      // --stall-timeout: a candidate without progress this long is hung (PoolOptions)
  std::string exe;                  // worker binary (tests); default this process
  int verbosity = 0;

  // Throws Error naming the option when a value is out of range (NaN, negative, zero where meaningless).
  void validate() const;
  double err_limit(Family family) const;
};

// The device(s) a run uses, resolved from --device/--mp/--gpus against this build and machine.
struct DeviceChoice {
  BackendKind backend = BackendKind::Cpu;
  std::vector<int> indices;  // one worker each
  std::string why;           // how it was chosen ("auto: no GPU visible (...)"), for the log
};
// Throws Error with a hint: --device gpu on a build or machine without a GPU, --mp or --gpus beyond
// the visible devices, --gpus with --device cpu.
DeviceChoice choose_devices(const MeasureOptions& options);

std::vector<WorkerSpec> worker_specs(const DeviceChoice& choice);
PoolOptions pool_options(const MeasureOptions& options);

// The settle time of the GPU's timing when --settle-ms is not given (Protocol::settle_ms).
constexpr double kDefaultGpuSettleMs = 100.0;
// The timer a worker on this device measures with: "events" on a GPU, "steady_clock" on the CPU.
std::string_view timer_name_for(const DeviceInfo& device);
// The settle time a run with this timer uses: the protocol's, or the backend's default when it is < 0.
double settle_ms_for(const Protocol& protocol, std::string_view timer_name);

// The scheduling cost model of a shape (its FLOPs and 64 x its bytes): the run order, the shard balance and the
// ETA all use it.
double shape_cost(const ProblemKey& key);

// The order tune and bench run shapes in (indices into `keys`): costliest first, so that long shapes do not end a
// multi-GPU run alone and a short shape follows other short ones, not a power-capped long one (a short kernel timed
// right after the DeepSeek-V3 grid's hungriest shape ran 4-8% slow: docs/perf.md, 2026-12-02 16:45); the cheapest
// leads, so that the first verified result comes in seconds. Equal costs keep their input order.
std::vector<size_t> run_order(const std::vector<ProblemKey>& keys);

// A job for `key` with the protocol and limits of `options` (bench and tune add their own policy:
// screening, re-timing, confirmation); a negative settle time becomes the backend's default.
Job make_job(int id, const ProblemKey& key, std::vector<std::string> candidates, const MeasureOptions& options,
             std::string_view timer_name);

}  // namespace cktune
