// `cktune report --before B --after A [--tuned T] [--provenance P.json] [-o report.md] [--html report.html]`:
// docs/cli/report.md.
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
};

void run(ReportArgs a) {
  a.options.compare.metric = *metric_from_string(a.metric);  // CLI::IsMember checked both
  a.options.compare.role = *result_role_from_string(a.role);
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
  cmd->add_option("--before", o.before, "Measurements before tuning (cktune results or AITER op-test log/CSV)")
      ->required();
  cmd->add_option("--after", o.after, "Measurements after tuning")->required();
  cmd->add_option("--tuned", o.tuned, "The tuned CSV the after run used (gives the export lines)");
  cmd->add_option("--provenance", o.provenance, "Provenance JSON (default: <tuned>.provenance.json when present)");
  cmd->add_option("-o,--output", o.markdown_path, "Write the Markdown here (default: stdout unless --html)");
  cmd->add_option("--html", o.html_path, "Also write a self-contained HTML page with charts");
  cmd->add_option("--metric", args->metric, "us (speedup = before/after) or tflops (after/before)")
      ->capture_default_str()
      ->check(CLI::IsMember({"us", "tflops"}));
  cmd->add_option("--threshold", o.compare.threshold_pct, "Percent beyond which a shape counts as improved/regressed")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1000.0));
  cmd->add_option("--role", args->role, "Rows compared: dispatch, baseline or candidate")
      ->capture_default_str()
      ->check(CLI::IsMember({"dispatch", "baseline", "candidate"}));
  cmd->add_option("--backend", o.compare.backend, "Only rows of this backend");
  cmd->callback([args] { run(*args); });
}

}  // namespace cktune::cli
