#pragma once
// `cktune bench`: per shape, time what the runtime dispatch would run (the tuned row if the table has
// one, else the default heuristic) and the vendor baseline, in one run, through the same workers and
// measurement routine as tune. Run it before and after tuning; `compare` reads the two results files.
#include <optional>
#include <string>

#include "cktune/formats/family.hpp"
#include "cktune/tune/measure.hpp"

namespace cktune {

struct BenchOptions {
  std::string input;              // -i: shapes (untuned or tuned CSV)
  std::optional<Family> family;
  std::string config;             // --config: the tuned table the runtime would use
  std::string device = "cpu";
  int mp = 1;
  std::string output;             // -o: results CSV ("" = none)
  std::string log_dir, tag;       // --log-dir DIR --tag before|after
  bool all_candidates = false;
  bool baseline = true;
  Protocol protocol;
  double err_ratio = -1;          // < 0: family default
  double timeout_s = 600;
  std::string exe;
  int verbosity = 0;
};

struct BenchSummary {
  int shapes = 0, dispatch_tuned = 0, dispatch_default = 0, not_runnable = 0, failed = 0;
  std::string output, log_file;
};

BenchSummary run_bench(const BenchOptions& options);

}  // namespace cktune
