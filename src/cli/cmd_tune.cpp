// cktune tune: AITER's tuner flags where they apply (-i, -o, -o2, -k, --errRatio, --warmup, --iters,
// --all, --timeout, --mp, --libtype, --min_improvement_pct), plus cktune's own (docs/cli/tune.md).
#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/core/log.hpp"
#include "cktune/engine/evaluate.hpp"
#include "cktune/tune/tuner.hpp"
#include "cli/app.hpp"
#include "cli/common.hpp"
#include "cli/measure_options.hpp"

namespace cktune::cli {

namespace {

struct TuneCli {
  TuneOptions o;
  std::string family;
  std::string gpus;
  std::string libtype;
  bool no_split_k = false;
  bool split_k_flag = false;
  bool json = false;
  bool retry_failed = false;
};

}  // namespace

void register_tune(CLI::App& app) {
  auto cli = std::make_shared<TuneCli>();
  auto* cmd = app.add_subcommand("tune", "Tune every shape of an untuned CSV: verify and time every candidate, keep the fastest correct one");
  auto& opts = cli->o;
  cmd->add_option("-i,--input,--untune_file", opts.input, "Untuned CSV (AITER schema)")->required()->check(CLI::ExistingFile);
  cmd->add_option("-o,--output,--tune_file", opts.output, "Tuned CSV to write (AITER layout); existing keys are skipped unless --all")->required();
  cmd->add_option("--profile_file,--profile-file", opts.profile_file, "Every candidate's result (cktune results CSV)");
  cmd->add_option("--family", cli->family, "Kernel family (default: from the file name or header)");
  add_measure_options(cmd, opts.measure, cli->gpus);
  cmd->add_flag("-k,--splitK", cli->split_k_flag, "Search split-K candidates (cktune does by default)");
  cmd->add_flag("--no-splitK", cli->no_split_k, "Leave split-K candidates out");
  cmd->add_flag("--all", opts.all, "Retune keys that the output already has");
  cmd->add_flag("--retry-failed", cli->retry_failed,
                "Accepted for compatibility: shapes without a row are always tuned again on a rerun");
  cmd->add_option("--libtype", cli->libtype, "Only candidates of these libtypes (comma-separated, or all)");
  cmd->add_option("--kernels", opts.kernels, "Only candidates whose name matches this regular expression (RE2, partial match)");
  cmd->add_option("--exclude-kernels", opts.exclude_kernels,
                  "Leave out candidates whose name matches this regular expression (RE2, partial match)");
  cmd->add_option("--min-improvement,--min_improvement_pct", opts.min_improvement_pct,
                  "Write a row only when it beats what the runtime runs today by this many percent");
  cmd->add_option("--screen-factor", opts.screen_factor,
                  "Time fully only candidates within this factor of the best 5-launch screen (0 = all)")
      ->capture_default_str();
  cmd->add_option("--retime-tolerance", opts.retime_tolerance, "Re-time candidates within this fraction of the best")
      ->capture_default_str();
  cmd->add_option("--tie-tolerance", opts.tie_tolerance, "After re-timing, within this fraction is a tie (stable rule decides)")
      ->capture_default_str();
  cmd->add_option("--confirm-margin", opts.confirm_margin,
                  "A winner faster than the runner-up by more than this fraction is verified and timed again on fresh buffers (0 = off)")
      ->capture_default_str();
  cmd->add_option("--shard", opts.shard, "Tune only shard I of N (I/N): deterministic, cost-balanced");
  cmd->add_option("--inject-fault", opts.inject_fault, "Testing: KIND@INSTANCE[,...] with KIND hang|crash|wrong|partial");
  cmd->add_flag("--include-test-instances", opts.include_test_instances, "Testing: also run the planted wrong candidates");
  cmd->add_flag("--no-progress", [&opts](int64_t) { opts.progress = false; }, "No progress line on a terminal");
  cmd->add_flag("--json", cli->json, "Print the summary as JSON on stdout");
  cmd->callback([cli] {
    auto& o = cli->o;
    o.command_line = command_line();
    finish_measure_options(o.measure, cli->gpus);
    if (!cli->family.empty()) o.family = parse_family(cli->family);
    if (cli->no_split_k) o.split_k = false;
    if (!cli->libtype.empty()) o.libtypes = split_list(cli->libtype);
    TuneSummary s = run_tune(o);
    const std::string next = fmt::format("cktune bench -i {} --config {} --against default --device {} -o after.csv",
                                         o.input, o.output, s.device);
    if (cli->json) {
      nlohmann::json missing = nlohmann::json::array();
      for (const auto& m : s.missing) missing.push_back({{"key", m.key}, {"why", m.why}});
      nlohmann::json j = {{"shapes", s.total},          {"tuned", s.tuned},       {"failed", s.failed},
                          {"skipped", s.skipped},       {"unreachable", s.unreachable},
                          {"kept", s.kept},             {"replaced", s.replaced}, {"added", s.added},
                          {"changed_on_retime", s.changed_on_retime},
                          {"candidate_results", s.candidates},
                          {"seconds", s.seconds},       {"first_timing_s", s.first_timing_s},
                          {"phases_s", s.phases_s},
                          {"speedup_vs_default", s.speedup_vs_default}, {"speedup_shapes", s.speedup_shapes},
                          {"device", s.device},         {"missing", missing},
                          {"output", o.output},         {"next", next}};
      fmt::print("{}\n", j.dump(2));
    } else {
      fmt::print("tuned {} of {} shapes ({} failed, {} skipped as already done, {} unreachable by the runtime)\n",
                 s.tuned, s.total, s.failed, s.skipped, s.unreachable);
      fmt::print("rows: {} new, {} replaced, {} kept (--min-improvement); {} winner(s) changed on re-timing\n", s.added,
                 s.replaced, s.kept, s.changed_on_retime);
      if (s.speedup_shapes > 0)
        fmt::print("speed-up over the untuned default (as measured while tuning): {:.2f}x geometric mean over {} shape(s)\n",
                   s.speedup_vs_default, s.speedup_shapes);
      fmt::print("{} candidate results in {:.1f} s ({}); table: {}\n", s.candidates, s.seconds,
                 s.first_timing_s >= 0 ? fmt::format("first result after {:.2f} s", s.first_timing_s) : "no result",
                 o.output);
      if (!s.phases_s.empty()) {
        std::string line;
        for (const auto& [phase, sec] : s.phases_s) line += fmt::format("{}{} {:.1f} s", line.empty() ? "" : ", ", phase, sec);
        fmt::print("worker time by phase: {}\n", line);
      }
      for (const auto& m : s.missing) fmt::print("missing: {}: {}\n", m.key, m.why);
      if (s.missing.empty())
        fmt::print("next: check the table holds up, before and after in one run:\n  {}\n", next);
    }
    if (!s.missing.empty() || s.failed > 0) {
      log().error("{} of {} requested shape(s) have no verified row in {} (listed above); rerun the same command to retry them",
                  s.missing.size(), s.total, o.output);
      set_exit_code(static_cast<int>(ExitCode::Error));
    }
  });
}

void register_worker(CLI::App& app) {
  auto* cmd = app.add_subcommand("worker", "Internal: evaluate jobs sent on stdin (started by tune and bench)");
  cmd->group("");  // hidden from --help
  auto backend = std::make_shared<std::string>("cpu");
  auto device = std::make_shared<int>(0);
  cmd->add_option("--backend", *backend)->required()->check(CLI::IsMember({"cpu", "gpu"}));
  cmd->add_option("--device", *device);
  cmd->callback([backend, device] { set_exit_code(worker_main(*backend_kind_from_string(*backend), *device)); });
}

}  // namespace cktune::cli
