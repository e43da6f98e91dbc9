// cktune bench: time what the runtime would run per shape (tuned row, else the default) and the vendor
// baseline, in one run; results CSV for compare/report, and the readable table on stdout.
#include <fmt/format.h>

#include "bench/bench.hpp"
#include "cktune/core/error.hpp"
#include "cli/app.hpp"
#include "cli/common.hpp"

namespace cktune::cli {

void register_bench(CLI::App& app) {
  auto o = std::make_shared<BenchOptions>();
  auto family = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("bench", "Time the kernel the runtime would pick for each shape (tuned row, else the default) and the vendor baseline");
  cmd->add_option("-i,--input", o->input, "Shapes: an untuned (or tuned) CSV")->required()->check(CLI::ExistingFile);
  cmd->add_option("--family", *family, "Kernel family (default: from the file name or header)");
  cmd->add_option("--config", o->config, "The tuned table the runtime would use (AITER layout)");
  cmd->add_option("--device", o->device, "cpu or gpu")->check(CLI::IsMember({"cpu", "gpu"}));
  cmd->add_option("--mp", o->mp, "Worker processes (one per GPU)")->check(CLI::Range(1, 1024));
  cmd->add_option("-o,--output", o->output, "Results CSV (cktune results format)");
  cmd->add_option("--log-dir", o->log_dir, "Also write DIR/<family>_bench_<tag>_<YYYYMMDD_HHMMSS>.log");
  cmd->add_option("--tag", o->tag, "Tag of the log file name: before, after, ...");
  cmd->add_flag("--all-candidates", o->all_candidates, "Also time every candidate instance");
  cmd->add_flag("--no-baseline", [o](int64_t) { o->baseline = false; }, "Leave the vendor baseline out");
  cmd->add_option("--warmup", o->protocol.warmup, "Untimed launches before timing");
  cmd->add_option("--iters", o->protocol.iters, "Timed launches (median reported)");
  cmd->add_option("--min-time-ms", o->protocol.min_time_ms, "Keep timing until this much total time");
  cmd->add_option("--rotate", o->protocol.rotate, "Input sets rotated through (0 = enough to exceed the L2)");
  cmd->add_option("--seed", o->protocol.seed, "Seed of the random inputs");
  cmd->add_option("--errRatio", o->err_ratio, "Largest errRatio that passes (default 0.05 GEMM, 0.1 MoE)");
  cmd->add_option("--timeout", o->timeout_s, "Seconds a kernel may take from its first launch to its result");
  cmd->callback([o, family] {
    if (!family->empty()) o->family = parse_family(*family);
    if (!o->log_dir.empty() && o->tag.empty()) throw Error("--log-dir needs --tag (e.g. --tag before)");
    o->verbosity = verbosity();
    BenchSummary s = run_bench(*o);
    fmt::print(stderr, "bench: {} shapes ({} from the tuned table, {} default){}{}\n", s.shapes, s.dispatch_tuned,
               s.dispatch_default, s.output.empty() ? "" : "; results: " + s.output,
               s.log_file.empty() ? "" : "; log: " + s.log_file);
    if (s.failed > 0) set_exit_code(static_cast<int>(ExitCode::Error));
  });
}

}  // namespace cktune::cli
