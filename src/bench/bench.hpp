#pragma once
// `cktune bench`: per shape, time what the runtime dispatch would run (the tuned row if the table has
// one, else the default heuristic) and the vendor baseline, in one run, through the same workers and
// measurement routine as tune. With --against, the "before" kernels are timed in the same run,
// interleaved with the "after" ones, so drift between two runs cannot pass for a gain.
#include <optional>
#include <string>
#include <vector>

#include "cktune/engine/options.hpp"
#include "cktune/formats/family.hpp"

namespace cktune {

struct BenchOptions {
  std::string input;              // -i: shapes (untuned or tuned CSV)
  std::optional<Family> family;
  std::string config;             // --config: the tuned table the runtime would use
  std::string against;            // --against: "", "default", "current" or a tuned table (the "before")
  MeasureOptions measure;         // device, workers, protocol, limits, watchdog (shared with tune)
  std::string output;             // -o: results CSV ("" = none)
  std::string log_dir, tag;       // --log-dir DIR --tag before|after
  bool all_candidates = false;
  bool baseline = true;
  int interleave_rounds = 5;      // --against: interleaved re-timing rounds
};

struct BenchSummary {
  int shapes = 0, dispatch_tuned = 0, dispatch_default = 0, not_runnable = 0, failed = 0;
  // GEMM shapes dispatched from the tuned table through the row of another M (the runtime's padded-M or
  // next-power-of-two lookup), and up to three of them in words.
  int dispatch_other_size = 0;
  std::vector<std::string> other_size_examples;
  std::string device;             // "cpu" or "gpu"
  std::string against;            // what the "before" rows ran ("" when no --against)
  std::string output, log_file;
};

BenchSummary run_bench(const BenchOptions& options);

}  // namespace cktune
