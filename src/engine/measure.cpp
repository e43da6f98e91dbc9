#include "cktune/engine/measure.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cktune/core/error.hpp"
#include "cktune/core/log.hpp"
#include "cktune/engine/instance.hpp"
#include "cktune/engine/workload.hpp"

namespace cktune {

std::string Protocol::describe(int sets_used) const {
  return fmt::format("timer={};warmup={};iters={};min_time_ms={};rotate={};stat=median;seed={}{}{}",
                     timer.empty() ? "unknown" : timer, warmup, iters, min_time_ms, sets_used, seed,
                     routing == "uniform" ? std::string() : ";routing=" + routing,
                     settle_ms > 0 ? fmt::format(";settle_ms={}", settle_ms) : std::string());
}

namespace {
std::atomic<std::uint64_t> g_progress{0};
}  // namespace

void note_progress() { g_progress.fetch_add(1, std::memory_order_relaxed); }
std::uint64_t progress_count() { return g_progress.load(std::memory_order_relaxed); }

double percentile(std::vector<double> samples, double p) {
  if (samples.empty()) return 0.0;
  std::sort(samples.begin(), samples.end());
  double pos = p * static_cast<double>(samples.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, samples.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return samples[lo] + (samples[hi] - samples[lo]) * frac;
}

Measurement combine_timings(const std::vector<Measurement>& parts) {
  if (parts.empty()) throw Error("combine_timings: no timings to combine");
  std::vector<double> medians, p10s, p90s;
  Measurement c;
  c.min_us = parts.front().min_us;
  c.sets = parts.front().sets;
  double weighted = 0;
  for (const auto& m : parts) {
    medians.push_back(m.median_us);
    p10s.push_back(m.p10_us);
    p90s.push_back(m.p90_us);
    c.min_us = std::min(c.min_us, m.min_us);
    c.iters += m.iters;
    weighted += m.mean_us * static_cast<double>(m.iters);
  }
  c.median_us = percentile(medians, 0.5);
  c.p10_us = std::min(percentile(p10s, 0.5), c.median_us);
  c.p90_us = std::max(percentile(p90s, 0.5), c.median_us);
  c.mean_us = c.iters > 0 ? weighted / static_cast<double>(c.iters) : percentile(medians, 0.5);
  return c;
}

Measurement measure(Instance& instance, Workload& workload, Timer& timer, const Protocol& protocol,
                    double expected_us) {
  const int sets = std::max(1, workload.sets());
  // Warm-up: module load, caches, clocks. Rotation continues across warm-up and timing, and from the workload's last
  // timing, so that the first timed launch does not find its inputs in the L2.
  int launch_no = workload.next_set % sets;
  for (int i = 0; i < protocol.warmup; ++i) instance.launch(workload, launch_no++ % sets);

  // all: every timed launch; the statistics use all[kept..]. Settling (Protocol::settle_ms) drops the leading
  // launches of a long kernel until they add up to the settle time, and times as many more.
  std::vector<double> all;
  size_t kept = 0;
  bool settled = protocol.settle_ms <= 0;
  const int iters = std::max(1, protocol.iters);
  int target = iters;
  double typical_us = expected_us;  // one launch's time: the hint, then the median so far
  constexpr int kMaxRequeued = 3;
  int requeued = 0;
  while (true) {
    int chunk = target - static_cast<int>(all.size() - kept);
    chunk = std::clamp(chunk, 1, std::max(1, protocol.max_iters - static_cast<int>(all.size())));
    // Long launches go in batches of about kMaxBatchUs, so that a slow kernel shows progress as often as a fast one.
    if (typical_us > 0) chunk = std::min(chunk, std::max(1, static_cast<int>(kMaxBatchUs / typical_us)));
    timer.reserve(chunk);
    for (int i = 0; i < chunk; ++i) {
      timer.begin(i);
      instance.launch(workload, launch_no++ % sets);
      timer.end(i);
    }
    std::vector<double> got = timer.collect_us();
    if (static_cast<int>(got.size()) != chunk) throw Error("timer returned a wrong number of samples");
    note_progress();
    if (!timer.queued_in_time() && requeued < kMaxRequeued) {
      ++requeued;  // the device reached the batch before the host had queued it: again, with the timer's longer spin
      continue;
    }
    all.insert(all.end(), got.begin(), got.end());
    typical_us = percentile(all, 0.5);
    if (!settled) {
      if (typical_us < Protocol::kSettleMinUs) {
        settled = true;  // short launches: nothing to drop
      } else {
        const double need_us = std::min(protocol.settle_ms * 1000.0, Protocol::kSettleLaunches * typical_us);
        double sum = 0.0;
        size_t k = 0;
        while (k < all.size() && sum < need_us) sum += all[k++];
        if (sum >= need_us) {
          settled = true;
          kept = k;
        } else {
          kept = all.size();  // still settling: everything so far is dropped
        }
      }
    }
    const bool at_cap = static_cast<int>(all.size()) >= protocol.max_iters;
    if (at_cap && all.size() == kept) kept = 0;  // never settled within the cap: keep everything
    const int have = static_cast<int>(all.size() - kept);
    double total_ms = 0.0;
    for (size_t i = kept; i < all.size(); ++i) total_ms += all[i] / 1000.0;
    if (at_cap || (settled && have >= iters && total_ms >= protocol.min_time_ms)) break;
    if (!settled || have < iters) {
      target = iters;
      continue;
    }
    // Not enough time yet: grow geometrically toward min_time_ms.
    double per_iter_ms = total_ms / static_cast<double>(have);
    double more = per_iter_ms > 0 ? (protocol.min_time_ms - total_ms) / per_iter_ms : have;
    target = have + std::max(1, static_cast<int>(std::ceil(more)));
  }
  workload.next_set = launch_no % sets;
  const std::vector<double> times(all.begin() + static_cast<std::ptrdiff_t>(kept), all.end());
  // -vv: every timed launch, in order, to see what a median hides (a slow start, a clock step, two levels).
  if (log().should_log(spdlog::level::trace))
    log().trace("{}: {} timed launches after {} warm-up, the first {} dropped to settle; us: {:.2f}", instance.desc().name,
                all.size(), protocol.warmup, kept, fmt::join(all, " "));

  Measurement m;
  m.iters = static_cast<int>(times.size());
  m.sets = sets;
  m.median_us = percentile(times, 0.5);
  m.p10_us = percentile(times, 0.1);
  m.p90_us = percentile(times, 0.9);
  m.min_us = *std::min_element(times.begin(), times.end());
  m.mean_us = std::accumulate(times.begin(), times.end(), 0.0) / static_cast<double>(times.size());
  return m;
}

}  // namespace cktune
