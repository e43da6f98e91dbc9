// `cktune report --before B --after A [--tuned T] [--counts capture.json] [--provenance P.json] [-o report.md]
// [--html report.html]` (or --after alone for a `bench --against` file): docs/cli/report.md.
#include <cstdio>
#include <memory>

#include "cktune/report/report.hpp"
#include "cli/app.hpp"
#include "cli/common.hpp"

namespace cktune::cli {

namespace {

struct ReportArgs {
  ReportOptions options;
  std::string metric = "us";
  std::string role = "dispatch";
  GroupingArgs grouping;
};

void run(ReportArgs a) {
  a.options.compare.metric = *metric_from_string(a.metric);  // CLI::IsMember checked both
  a.options.compare.role = *result_role_from_string(a.role);
  apply_grouping(a.grouping, a.options.compare);
  a.options.command_line = command_line();
  std::string markdown = run_report(a.options);
  // Without an output file the Markdown is the result, on stdout.
  if (a.options.markdown_path.empty() && a.options.html_path.empty()) std::fputs(markdown.c_str(), stdout);
}

}  // namespace

void register_report(CLI::App& app) {
  auto args = std::make_shared<ReportArgs>();
  ReportOptions& o = args->options;
  auto* cmd = app.add_subcommand(
      "report", "Markdown (and HTML) report: environment, settings, full before/after comparison, how to use the table");
  cmd->add_option("--before", o.before,
                  "Measurements before tuning (cktune results or AITER op-test log/CSV); leave out when --after "
                  "is a `bench --against` file holding both runs");
  cmd->add_option("--after", o.after, "Measurements after tuning")->required();
  cmd->add_option("--tuned", o.tuned, "The tuned CSV the after run used (gives the deploy command)");
  cmd->add_option("--counts", o.counts,
                  "capture's JSON summary (cktune capture LOGS --json > counts.json): weights speedups by calls");
  cmd->add_option("--deploy-table", o.deploy_table,
                  "Where the tuned table without regressed rows goes (default: next to -o/--html, as "
                  "<tuned stem>.deploy.csv)");
  cmd->add_option("--provenance", o.provenance, "Provenance JSON (default: <tuned>.provenance.json when present)");
  cmd->add_option("--profile", o.profiles,
                  "Tune's profile (-o2) of a fused-MoE table: its pipeline times, to compare bench with tune; repeat it "
                  "for a table merged from several tunes (default: the files the provenance names, when present)");
  cmd->add_option("-o,--output", o.markdown_path, "Write the Markdown here (default: stdout unless --html)");
  cmd->add_option("--html", o.html_path, "Also write a self-contained HTML page with charts");
  cmd->add_option("--metric", args->metric, "us (speedup = before/after) or tflops (after/before)")
      ->capture_default_str()
      ->check(CLI::IsMember({"us", "tflops"}));
  cmd->add_option("--threshold", o.compare.threshold_pct, "Floor in percent: the median speedup must differ from 1 by more than this (and the "
                  "p10..p90 intervals must not overlap) to count as improved/regressed")
      ->capture_default_str()
      ->check(non_negative_finite());
  cmd->add_option("--role", args->role, "Rows compared: dispatch, baseline or candidate")
      ->capture_default_str()
      ->check(CLI::IsMember({"dispatch", "baseline", "candidate"}));
  cmd->add_option("--backend", o.compare.backend, "Only rows of this backend");
  cmd->add_option("--peak-tflops", o.peak_tflops,
                  "Tensor peak in TFLOP/s of the shapes' math type, for the hardware floors (default: the after "
                  "device's datasheet; 0 = default)")
      ->check(non_negative_finite());
  cmd->add_option("--peak-tbps", o.peak_tbps,
                  "Memory bandwidth in TB/s for the hardware floors (default: the after device's datasheet; 0 = "
                  "default)")
      ->check(non_negative_finite());
  add_grouping_options(cmd, args->grouping);
  cmd->callback([args] { run(*args); });
}

}  // namespace cktune::cli
