#pragma once
// Evaluating a job inside one process: prepare inputs, then for each candidate ask, verify, time and
// check what the timed launches wrote; re-time near-ties interleaved; confirm a runaway winner on fresh
// buffers. The worker process runs this for both tune and bench.
#include <functional>
#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cktune/engine/backend.hpp"
#include "cktune/engine/job.hpp"

namespace cktune {

// Receives the events of an evaluation (make_event(EventKind::...) objects).
using EventSink = std::function<void(const nlohmann::json&)>;

// Instances of one backend, created once per family (through its family unit) and looked up by name.
class InstanceCache {
 public:
  explicit InstanceCache(Backend& backend) : backend_(backend) {}
  Instance* find(Family family, const std::string& name);

 private:
  Backend& backend_;
  std::map<Family, std::map<std::string, InstancePtr>> by_family_;
};

// The passed candidates that are re-timed interleaved, by index: those whose median is within `tol` of the
// best median, and, when the best runs long enough for its clocks to be settled first (Protocol::kSettleMinUs:
// the power-capped regime, where a kernel's samples can be bimodal), those whose p10 reaches the best's p90,
// whose first timing cannot tell them apart from the best. Fewer than two: none.
std::vector<size_t> near_ties(const std::vector<CandidateResult>& results, double tol);

// The screen goes in two passes. Pass 1 verifies each candidate and times one launch right after its verification
// launch (the probe); pass 2, once every candidate has its probe, finishes each one's screen against the cut-off from
// the best probe (`time(p)` times it under protocol p; `probe_t` is its probe): a probe beyond `cutoff` by at most
// kScreenHiccupUs is taken again, and the candidate stops at its faster probe only when both are beyond it (one slow
// launch, from a clock step or the vendor library's first call, must not drop a kernel); a probe further beyond stops
// it at once (a kernel that slow is slow: the slowest of a big shape cost milliseconds a launch, and the probe is
// there to spare them); otherwise the full screen (`rest`) gives its time. Taking every probe first puts the cut-off
// at the best candidate's time whatever the candidates' order: with each screen finished in turn, a table that lists
// the slow kernels of a shape first gave dozens of them the full screen against a slow best-so-far.
inline constexpr double kScreenHiccupUs = 1000.0;
inline constexpr double kProbeFactor = 2.0;
// Pass 2's cut-off: kProbeFactor x screen_factor x the best passed candidate's probe (infinity when none passed).
double screen_cutoff(const std::vector<CandidateResult>& probed, double screen_factor);
Measurement finish_screen(const std::function<Measurement(const Protocol&)>& time, const Measurement& probe_t,
                          const Protocol& probe, const Protocol& rest, double cutoff);

// The protocol of one interleaved re-timing round of a near tie whose first timing took `us` a launch
// (evaluate.cpp says why a round's batch is never shorter than kMinRoundBatchUs).
inline constexpr double kMinRoundBatchUs = 2000.0;
Protocol round_protocol(const Job& job, double us);

// Returns the final results (after re-timing and confirmation), in candidate order.
std::vector<CandidateResult> evaluate_job(Backend& backend, InstanceCache& cache, const Job& job,
                                          const EventSink& sink);

// Worker process main loop: jobs in on stdin, events out on stdout (one JSON object per line).
int worker_main(BackendKind backend, int device_index);

}  // namespace cktune
