// cktune bench: time what the runtime would run per shape (tuned row, else the default) and the vendor
// baseline, in one run; results CSV for compare/report, and the readable table on stdout.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "bench/bench.hpp"
#include "cktune/core/error.hpp"
#include "cktune/core/log.hpp"
#include "cli/app.hpp"
#include "cli/common.hpp"
#include "cli/measure_options.hpp"

namespace cktune::cli {

void register_bench(CLI::App& app) {
  auto o = std::make_shared<BenchOptions>();
  auto family = std::make_shared<std::string>();
  auto gpus = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("bench", "Time the kernel the runtime would pick for each shape (tuned row, else the default) and the vendor baseline");
  cmd->add_option("-i,--input", o->input, "Shapes: an untuned (or tuned) CSV")->required()->check(CLI::ExistingFile);
  cmd->add_option("--family", *family, "Kernel family (default: from the file name or header)");
  cmd->add_option("--config", o->config, "The tuned table the runtime would use (AITER layout): the \"after\"");
  cmd->add_option("--against", o->against,
                  "Also time the \"before\" in the same run, interleaved: default (the untuned default), current (the "
                  "tables AITER_CONFIG_* names) or a tuned table");
  cmd->add_option("--interleave-rounds", o->interleave_rounds, "With --against: interleaved timing rounds (count)")
      ->capture_default_str();
  add_measure_options(cmd, o->measure, *gpus);
  cmd->add_option("-o,--output", o->output, "Results CSV (cktune results format)");
  cmd->add_option("--log-dir", o->log_dir, "Also write DIR/<family>_bench_<tag>_<YYYYMMDD_HHMMSS>.log");
  cmd->add_option("--tag", o->tag, "Tag of the log file name: before, after, ...");
  cmd->add_flag("--all-candidates", o->all_candidates, "Also time every candidate instance");
  cmd->add_flag("--no-baseline", [o](int64_t) { o->baseline = false; }, "Leave the vendor baseline out");
  cmd->callback([o, family, gpus] {
    if (!family->empty()) o->family = parse_family(*family);
    if (!o->log_dir.empty() && o->tag.empty()) throw Error("--log-dir needs --tag (e.g. --tag before)");
    finish_measure_options(o->measure, *gpus);
    BenchSummary s = run_bench(*o);
    const std::string other =
        s.dispatch_other_size > 0 ? fmt::format(", {} of them through another M's row", s.dispatch_other_size) : "";
    fmt::print(stderr, "bench: {} shapes on {} ({} from the tuned table{}, {} default){}{}{}\n", s.shapes, s.device,
               s.dispatch_tuned, other, s.dispatch_default, s.against.empty() ? "" : "; against " + s.against,
               s.output.empty() ? "" : "; results: " + s.output, s.log_file.empty() ? "" : "; log: " + s.log_file);
    if (s.dispatch_other_size > 0)
      log().warn("{} shape(s) ran a row tuned for another M, through the runtime's padded-M lookup ({}{}): that "
                 "kernel was picked for the other size and can be slow at this one; tune these M values for rows of "
                 "their own (capture --m-sweep vllm writes vLLM's batch sizes)",
                 s.dispatch_other_size, fmt::join(s.other_size_examples, "; "),
                 s.dispatch_other_size > static_cast<int>(s.other_size_examples.size()) ? "; ..." : "");
    if (s.failed > 0) set_exit_code(static_cast<int>(ExitCode::Error));
  });
}

}  // namespace cktune::cli
