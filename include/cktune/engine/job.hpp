#pragma once
// A job is one problem with the candidates to evaluate on it; a worker process evaluates jobs and
// streams events back (newline-delimited JSON on its stdout). Both tune and bench are built on jobs.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cktune/core/device.hpp"
#include "cktune/core/names.hpp"
#include "cktune/engine/fault.hpp"
#include "cktune/engine/instance.hpp"
#include "cktune/engine/measure.hpp"
#include "cktune/formats/problem.hpp"
#include "cktune/verify/check.hpp"
#include "cktune/verify/verdict.hpp"

namespace cktune {

struct Job {
  int id = 0;
  ProblemKey key;
  std::vector<std::string> candidates;  // instance names (or @default / @baseline), evaluated in this order
  std::uint64_t seed = 0;
  Protocol protocol;
  Tolerance tolerance;
  // Screening: every verified candidate is first timed briefly (warm-up 1, screen_iters launches); only
  // those within screen_factor of the best screen time get the full protocol. 0 = time everything fully.
  double screen_factor = 1.5;
  int screen_iters = 5;
  double retime_tolerance = 0.02;  // candidates within 2% of the best are re-timed interleaved
  int retime_rounds = 5;
  // A best candidate faster than the runner-up by more than this fraction is verified and timed again
  // on freshly prepared buffers (another seed, other addresses) before the result is final; 0 = never.
  double confirm_margin = 0.0;
  // Candidates that are equal twins of another on this shape (Instance::redundant) are reported not supported
  // instead of run: tune sets it; bench, which runs the kernels a table names, does not.
  bool skip_redundant = false;
  std::vector<InjectedFault> faults;
};

// One candidate's outcome.
struct CandidateResult {
  std::string name;
  std::string alias;         // "@default" / "@baseline" when the job named the candidate that way
  int id = 0;
  Provider provider = Provider::Cktune;
  int split_k = 1;
  Verdict verdict = Verdict::Skipped;
  std::string reason;
  bool unknown_instance = false;  // the job named an instance this backend does not have
  bool screened_out = false;      // timed only by the brief screen (never fully timed or checked): never a winner
  Measurement time;          // valid when verdict == Passed
  CheckResult check;         // valid when verified (before timing, and of the timed launches)
  bool retimed = false;
  double first_median_us = 0;  // before re-timing
  bool confirmed = false;      // timed again on fresh buffers (Job::confirm_margin)
  double confirm_median_us = 0;
  // Pipelines only (Instance::parts): median of each part timed alone, in part order, and their names.
  std::vector<double> part_us;
  std::vector<std::string> part_names;
  // The bytes the timed launches had to move at least (Workload::min_bytes, for bw and the floor); 0: the key's.
  double min_bytes = 0;
};

// The events a worker sends (one JSON object per line, {"ev": <text>, ...}).
enum class EventKind { Ready, Fatal, Heartbeat, Prepare, Prepared, Start, Result, Done, JobFailed };
inline constexpr EnumName<EventKind> kEventKindNames[] = {
    {EventKind::Ready, "ready"},       {EventKind::Fatal, "fatal"},   {EventKind::Heartbeat, "hb"},
    {EventKind::Prepare, "prepare"},   {EventKind::Prepared, "prepared"}, {EventKind::Start, "start"},
    {EventKind::Result, "result"},     {EventKind::Done, "done"},     {EventKind::JobFailed, "job_failed"},
};
constexpr std::string_view to_string(EventKind k) { return enum_text(kEventKindNames, k); }
// The kind of an event object; nullopt when "ev" is missing or unknown.
std::optional<EventKind> event_kind(const nlohmann::json& event);
// {"ev": <kind>} to which the caller adds its fields.
nlohmann::json make_event(EventKind kind);

nlohmann::json to_json(const Job& job);
Job job_from_json(const nlohmann::json& j);
nlohmann::json to_json(const CandidateResult& r);
CandidateResult candidate_result_from_json(const nlohmann::json& j);
nlohmann::json to_json(const DeviceInfo& d);
DeviceInfo device_from_json(const nlohmann::json& j);

}  // namespace cktune
