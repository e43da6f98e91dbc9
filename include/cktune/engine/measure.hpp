#pragma once
// The one measurement routine. Everything that times a kernel goes through measure(); its protocol is
// written into every output so each number can be reproduced.
#include <cstdint>
#include <string>
#include <vector>

namespace cktune {

class Instance;
class Workload;

struct Protocol {
  int warmup = 5;            // untimed launches first
  int iters = 101;           // timed launches (AITER's default)
  double min_time_ms = 0.0;  // keep timing until this much total time, if larger than iters give
  int max_iters = 100000;
  int rotate = 0;            // input sets rotated through; 0 = enough to exceed the L2 (at least 2)
  // Long launches first settle the device's clocks: the leading timed launches are dropped until they add up
  // to min(settle_ms, kSettleLaunches launches) when a launch takes at least kSettleMinUs (docs/perf.md,
  // 2026-11-25: under sustained load an H200's SM clock swings 1440-1980 MHz for its first ~50-100 ms). < 0 =
  // the backend's default (the GPU's events timer: 100 ms; the CPU: 0, off); 0 = off.
  double settle_ms = -1.0;
  static constexpr int kSettleLaunches = 40;
  static constexpr double kSettleMinUs = 100.0;
  std::uint64_t seed = 0;
  std::string timer;         // "events" (GPU) or "steady_clock" (CPU); filled by the backend
  std::string routing = "uniform";  // MoE families: how tokens are routed to experts (uniform, skewed)
  // "timer=events;warmup=5;iters=101;min_time_ms=0;rotate=4;stat=median;seed=0" (+ ";settle_ms=100" when on)
  std::string describe(int sets_used) const;
};

// Times consecutive launches; the GPU timer records events in the stream and syncs in collect().
class Timer {
 public:
  virtual ~Timer() = default;
  virtual void begin(int i) = 0;
  virtual void end(int i) = 0;
  virtual void reserve(int n) = 0;
  virtual std::vector<double> collect_us() = 0;  // per-iteration times in microseconds, in order
  // After collect_us(): whether the whole batch was queued before the device started on it (the GPU timer's spin
  // lasted long enough); false: some launches ran while the host was still queueing, and measure() times the batch
  // again (the timer's spin is longer by then).
  virtual bool queued_in_time() const { return true; }
};

struct Measurement {
  double median_us = 0, min_us = 0, p10_us = 0, p90_us = 0, mean_us = 0;
  int iters = 0;
  int sets = 0;
};

// expected_us (0: unknown) is what one launch is expected to take (a brief timing of it before): the timed
// launches then go in batches of about kMaxBatchUs at most, so that progress is noted at least that often.
Measurement measure(Instance& instance, Workload& workload, Timer& timer, const Protocol& protocol,
                    double expected_us = 0);
inline constexpr double kMaxBatchUs = 2e6;

// This process's device work, counted as it completes: measure() notes each batch of timed launches,
// check_output_now() each read-back of an output. A worker's heartbeat reports the count, so that its pool can
// tell a candidate whose launches stopped completing (a hung kernel) from a slow one (PoolOptions::stall_timeout_s).
void note_progress();
std::uint64_t progress_count();

// Several timings of one kernel taken apart in time (the interleaved re-timing rounds) as one:
// the median of their medians, with the typical p10..p90 around it (the median of each bound, widened to
// hold the median), the lowest min, the iteration-weighted mean and the total iterations. A burst of
// load that hits one part moves the combined median little, where it would move a single timing whole.
// Throws Error when `parts` is empty.
Measurement combine_timings(const std::vector<Measurement>& parts);

// Percentile by linear interpolation over sorted samples (p in [0,1]).
double percentile(std::vector<double> samples, double p);

}  // namespace cktune
