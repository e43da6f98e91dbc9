#pragma once
// `cktune tune`: per shape, every candidate that can run is verified and timed on a worker; the fastest
// that passes wins and is written at once (atomically) into the AITER-layout tuned table.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cktune/engine/instance.hpp"
#include "cktune/engine/job.hpp"
#include "cktune/engine/options.hpp"
#include "cktune/formats/family.hpp"

namespace cktune {

struct TuneOptions {
  std::string input;                    // -i: untuned CSV (or a tuned one: its keys are used)
  std::string output;                   // -o: tuned CSV (read first: its keys are skipped unless --all)
  std::string profile_file;             // -o2: every candidate's result (cktune results format)
  std::optional<Family> family;         // --family, else from the file name / header
  MeasureOptions measure;               // device, workers, protocol, limits, watchdog (shared with bench)
  bool split_k = true;                  // -k/--splitK (default on); --no-splitK leaves split-K out
  std::vector<std::string> libtypes;    // --libtype: only these libtypes ("all" = every)
  std::string kernels;                  // --kernels: regular expression on instance names
  std::string exclude_kernels;          // --exclude-kernels: candidates whose name matches are left out
  bool all = false;                     // --all: retune keys already in the output
  bool retry_failed = false;            // --retry-failed: shapes that failed in an earlier run
  bool include_test_instances = false;  // planted wrong candidates (testing)
  double screen_factor = 1.5;           // --screen-factor (0 = time every candidate fully)
  double retime_tolerance = 0.02;
  int retime_rounds = 5;
  double tie_tolerance = 0.01;          // after re-timing, within 1% = a tie, broken by the stable rule
  double confirm_margin = 0.15;         // a winner this much faster than the runner-up is confirmed on fresh buffers
  std::optional<double> min_improvement_pct;  // --min-improvement / --min_improvement_pct
  std::string shard;                    // --shard I/N
  std::string inject_fault;             // --inject-fault KIND@NAME[,...]
  std::string command_line;             // for provenance
  bool progress = true;

  // Throws Error naming the option when a value is out of range (after measure.validate()).
  void validate() const;
};

struct TuneSummary {
  int total = 0, skipped = 0, tuned = 0, failed = 0, unreachable = 0;
  int kept = 0, replaced = 0, added = 0;   // --min-improvement outcome
  int changed_on_retime = 0;
  int candidates = 0;
  double seconds = 0;
  double first_timing_s = -1;              // from start to the first candidate result
  std::map<std::string, double> phases_s;  // workers' wall time by phase, summed over workers (prepare, check, ...)
  double speedup_vs_default = 0;           // geometric mean of default / winner where the default ran
  int speedup_shapes = 0;
  std::string device;                      // "cpu" or "gpu"
  struct Missing {
    std::string key;
    std::string why;
  };
  std::vector<Missing> missing;            // requested keys left without a verified row (run failed)
};

TuneSummary run_tune(const TuneOptions& options);

// Deterministic, cost-balanced share of the keys: "I/N" (1-based I). Keys are sorted by cost
// (descending) then key text, and each goes to the shard with the least total cost so far (ties to the
// lowest shard number), so every shard sees the same assignment.
std::vector<ProblemKey> shard_keys(const std::vector<ProblemKey>& keys, const std::string& shard);

// The candidates a job evaluates, from a family's instance descriptions: every one the filters keep
// (--no-splitK, --libtype, --kernels), never a baseline-only instance (bench's vendor baseline on a
// layout the family's tables cannot hand it).
std::vector<InstanceDesc> filter_candidates(std::vector<InstanceDesc> all, const TuneOptions& o);

// Which candidates may win a row. A table for an AMD gfx is AITER's (aiter::is_amd_gfx): only kernels
// AITER can build may be named there; the others are still timed and reported for comparison.
enum class WinnerScope { Any, AiterLoadable };

// The winner among results: the fastest eligible Passed candidate with err_ratio <= limit; candidates
// within tie_tolerance of the fastest are a tie, broken by the stable rule (smaller split_k, then
// libtype "cktune*" before vendor libraries, then lower kernel id, then name). nullopt when none is.
std::optional<size_t> pick_winner(const std::vector<CandidateResult>& results, double err_limit,
                                  double tie_tolerance, WinnerScope scope = WinnerScope::Any);

}  // namespace cktune
