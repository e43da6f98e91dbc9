// cktune tune: AITER's tuner flags where they apply (-i, -o, -o2, -k, --errRatio, --warmup, --iters,
// --all, --timeout, --mp, --libtype, --min_improvement_pct), plus cktune's own (docs/cli/tune.md).
#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/core/log.hpp"
#include "cktune/tune/evaluate.hpp"
#include "cktune/tune/tuner.hpp"
#include "cli/app.hpp"
#include "cli/common.hpp"

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
};

}  // namespace

void register_tune(CLI::App& app) {
  auto cli = std::make_shared<TuneCli>();
  auto* cmd = app.add_subcommand("tune", "Tune every shape of an untuned CSV: verify and time every candidate, keep the fastest correct one");
  auto& o = cli->o;
  cmd->add_option("-i,--input,--untune_file", o.input, "Untuned CSV (AITER schema)")->required()->check(CLI::ExistingFile);
  cmd->add_option("-o,--output,--tune_file", o.output, "Tuned CSV to write (AITER layout); existing keys are skipped unless --all")->required();
  cmd->add_option("--profile_file,--profile-file", o.profile_file, "Every candidate's result (cktune results CSV)");
  cmd->add_option("--family", cli->family, "Kernel family (default: from the file name or header)");
  cmd->add_option("--device", o.device, "Where to run: cpu or gpu")->check(CLI::IsMember({"cpu", "gpu"}));
  cmd->add_option("--mp", o.mp, "Worker processes (one per GPU; CPU: parallel workers)")->check(CLI::Range(1, 1024));
  cmd->add_option("--gpus", cli->gpus, "GPU indices to use, e.g. 0,2,5 (overrides --mp)");
  cmd->add_flag("-k,--splitK", cli->split_k_flag, "Search split-K candidates (cktune does by default)");
  cmd->add_flag("--no-splitK", cli->no_split_k, "Leave split-K candidates out");
  cmd->add_option("--errRatio", o.err_ratio, "Largest errRatio a winner may have (default 0.05 GEMM, 0.1 MoE)");
  cmd->add_option("--max-row-errRatio", o.max_row_err_ratio, "Largest errRatio of any single output row");
  cmd->add_option("--warmup", o.protocol.warmup, "Untimed launches before timing")->check(CLI::Range(0, 100000));
  cmd->add_option("--iters", o.protocol.iters, "Timed launches (median reported)")->check(CLI::Range(1, 10000000));
  cmd->add_option("--min-time-ms", o.protocol.min_time_ms, "Keep timing until this much total time");
  cmd->add_option("--rotate", o.protocol.rotate, "Input sets rotated through (0 = enough to exceed the L2)");
  cmd->add_option("--seed", o.protocol.seed, "Seed of the random inputs");
  cmd->add_flag("--all", o.all, "Retune keys that the output already has");
  cmd->add_flag("--retry-failed", o.retry_failed, "Retry shapes that failed in the interrupted run being resumed");
  cmd->add_option("--timeout", o.timeout_s, "Seconds a candidate may take from its first launch to its result");
  cmd->add_option("--prepare-timeout", o.prepare_timeout_s, "Seconds input generation and reference may take");
  cmd->add_option("--libtype", cli->libtype, "Only candidates of these libtypes (comma-separated, or all)");
  cmd->add_option("--kernels", o.kernels, "Only candidates whose name matches this regular expression (RE2, partial match)");
  cmd->add_option("--min-improvement,--min_improvement_pct", o.min_improvement_pct,
                  "Write a row only when it beats what the runtime runs today by this many percent");
  cmd->add_option("--screen-factor", o.screen_factor,
                  "Time fully only candidates within this factor of the best 5-launch screen (0 = all)");
  cmd->add_option("--retime-tolerance", o.retime_tolerance, "Re-time candidates within this fraction of the best");
  cmd->add_option("--tie-tolerance", o.tie_tolerance, "After re-timing, within this fraction is a tie (stable rule decides)");
  cmd->add_option("--shard", o.shard, "Tune only shard I of N (I/N): deterministic, cost-balanced");
  cmd->add_option("--inject-fault", o.inject_fault, "Testing: KIND@INSTANCE[,...] with KIND hang|crash|wrong|partial");
  cmd->add_flag("--include-test-instances", o.include_test_instances, "Testing: also run the planted wrong candidates");
  cmd->add_flag("--no-progress", [&o](int64_t) { o.progress = false; }, "No progress line on a terminal");
  cmd->add_flag("--json", cli->json, "Print the summary as JSON on stdout");
  cmd->callback([cli, cmd] {
    auto& o = cli->o;
    o.command_line = command_line();
    o.verbosity = verbosity();
    o.err_ratio_given = cmd->count("--errRatio") > 0;
    if (!cli->family.empty()) o.family = parse_family(cli->family);
    if (cli->no_split_k) o.split_k = false;
    if (!cli->gpus.empty()) o.gpus = parse_int_list(cli->gpus, "--gpus");
    if (!cli->libtype.empty()) o.libtypes = split_list(cli->libtype);
    if (o.device == "cpu" && !o.gpus.empty()) throw Error("--gpus needs --device gpu");
    TuneSummary s = run_tune(o);
    if (cli->json) {
      nlohmann::json j = {{"shapes", s.total},          {"tuned", s.tuned},       {"failed", s.failed},
                          {"skipped", s.skipped},       {"unreachable", s.unreachable},
                          {"kept", s.kept},             {"replaced", s.replaced}, {"added", s.added},
                          {"changed_on_retime", s.changed_on_retime},
                          {"candidate_results", s.candidates},
                          {"seconds", s.seconds},       {"first_timing_s", s.first_timing_s},
                          {"output", o.output}};
      fmt::print("{}\n", j.dump(2));
    } else {
      fmt::print("tuned {} of {} shapes ({} failed, {} skipped as already done, {} unreachable by the runtime)\n",
                 s.tuned, s.total, s.failed, s.skipped, s.unreachable);
      fmt::print("rows: {} new, {} replaced, {} kept (--min-improvement); {} winner(s) changed on re-timing\n", s.added,
                 s.replaced, s.kept, s.changed_on_retime);
      fmt::print("{} candidate results in {:.1f} s (first result after {:.2f} s); table: {}\n", s.candidates,
                 s.seconds, s.first_timing_s, o.output);
    }
    if (s.failed > 0) set_exit_code(static_cast<int>(ExitCode::Error));
  });
}

void register_worker(CLI::App& app) {
  auto* cmd = app.add_subcommand("worker", "Internal: evaluate jobs sent on stdin (started by tune and bench)");
  cmd->group("");  // hidden from --help
  auto backend = std::make_shared<std::string>("cpu");
  auto device = std::make_shared<int>(0);
  cmd->add_option("--backend", *backend)->required();
  cmd->add_option("--device", *device);
  cmd->callback([backend, device] { set_exit_code(worker_main(*backend, *device)); });
}

}  // namespace cktune::cli
