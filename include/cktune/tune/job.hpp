#pragma once
// A job is one problem with the candidates to evaluate on it; a worker process evaluates jobs and
// streams events back (newline-delimited JSON on its stdout). Both tune and bench are built on jobs.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cktune/tune/fault.hpp"
#include "cktune/tune/measure.hpp"
#include "cktune/tune/problem.hpp"
#include "cktune/verify/check.hpp"
#include "cktune/verify/verdict.hpp"

namespace cktune {


struct Job {
  int id = 0;
  ProblemKey key;
  std::vector<std::string> candidates;  // instance names, evaluated in this order
  std::uint64_t seed = 0;
  Protocol protocol;
  Tolerance tolerance;
  // Screening: every verified candidate is first timed briefly (warm-up 1, screen_iters launches); only
  // those within screen_factor of the best screen time get the full protocol. 0 = time everything fully.
  double screen_factor = 1.5;
  int screen_iters = 5;
  double retime_tolerance = 0.02;  // candidates within 2% of the best are re-timed interleaved
  int retime_rounds = 5;
  std::vector<InjectedFault> faults;
};

// One candidate's outcome.
struct CandidateResult {
  std::string name;
  std::string alias;         // "@default" / "@baseline" when the job named the candidate that way
  int id = 0;
  std::string libtype;
  int split_k = 1;
  Verdict verdict = Verdict::Skipped;
  std::string reason;
  Measurement time;          // valid when verdict == Passed
  CheckResult check;         // valid when verified
  bool retimed = false;
  double first_median_us = 0;  // before re-timing
};

nlohmann::json to_json(const Job& job);
Job job_from_json(const nlohmann::json& j);
nlohmann::json to_json(const CandidateResult& r);
CandidateResult candidate_result_from_json(const nlohmann::json& j);

}  // namespace cktune
