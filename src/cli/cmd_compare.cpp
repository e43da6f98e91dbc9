// `cktune compare BEFORE AFTER [--metric us|tflops] [--threshold PCT] [--role R] [--backend B] [--json|--csv]`
// and `cktune compare [--interleaved] FILE` for a `bench --against` file: docs/cli/compare.md.
#include <cstdio>
#include <memory>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cktune/compare/compare.hpp"
#include "cktune/core/error.hpp"
#include "cli/app.hpp"
#include "cli/common.hpp"

namespace cktune::cli {

namespace {

struct CompareArgs {
  std::string before, after;
  std::string interleaved;
  bool vs_baseline = false;
  std::string metric = "us";
  double threshold_pct = 3.0;
  std::string role = "dispatch";
  std::string backend;
  GroupingArgs grouping;
  bool json = false;
  bool csv = false;
};

CompareOptions to_options(const CompareArgs& a) {
  CompareOptions o;
  o.metric = *metric_from_string(a.metric);  // CLI::IsMember checked it
  o.threshold_pct = a.threshold_pct;
  o.role = *result_role_from_string(a.role);
  o.backend = a.backend;
  apply_grouping(a.grouping, o);
  return o;
}

void run(const CompareArgs& a) {
  // load (one interleaved file or two) -> match and compute -> print
  const CompareOptions o = to_options(a);
  std::string single = a.interleaved;
  if (single.empty() && a.after.empty()) single = a.before;
  if (!a.interleaved.empty() && !a.before.empty())
    throw Error("--interleaved takes the only input file", "write cktune compare --interleaved FILE, or "
                                                           "cktune compare BEFORE AFTER");
  if (single.empty() && a.before.empty())
    throw Error("compare needs BEFORE AFTER, or one results file of `bench --against`",
                "cktune compare before.csv after.csv | cktune compare --interleaved bench.csv");
  if (a.vs_baseline && (single.empty() || !a.after.empty()))
    throw Error("--vs-baseline takes one results file of `bench` (its baseline rows are before, its dispatch rows after)",
                "cktune compare --vs-baseline bench.csv");
  if (a.vs_baseline && o.role != ResultRole::Dispatch)
    throw Error("--vs-baseline compares the baseline rows with the dispatch rows; leave --role out");
  CompareInput before, after;
  if (a.vs_baseline) std::tie(before, after) = split_vs_baseline(load_compare_input(single));
  else if (!single.empty()) std::tie(before, after) = split_interleaved(load_compare_input(single), o.role);
  else {
    before = load_compare_input(a.before);
    after = load_compare_input(a.after);
  }
  Comparison c = compare(std::move(before), std::move(after), o);
  if (a.json) std::fputs((comparison_json(c).dump(1) + "\n").c_str(), stdout);
  else if (a.csv) std::fputs(render_comparison_csv(c).c_str(), stdout);
  else std::fputs(render_comparison_text(c).c_str(), stdout);
}

}  // namespace

void register_compare(CLI::App& app) {
  auto args = std::make_shared<CompareArgs>();
  auto* cmd = app.add_subcommand(
      "compare", "Before/after speedups per shape, summary and breakdown per (N,K) group and size class");
  cmd->add_option("before", args->before,
                  "cktune results file or AITER op-test log/CSV measured before tuning; alone: a `bench --against` "
                  "file holding both runs");
  cmd->add_option("after", args->after, "the same after tuning");
  cmd->add_option("--interleaved", args->interleaved,
                  "One results file of `bench --against`: its `against` rows are before, its dispatch rows after");
  cmd->add_flag("--vs-baseline", args->vs_baseline,
                "One results file of `bench`: its vendor-baseline rows (cuBLASLt) are before, its dispatch rows "
                "(the tuned table) after");
  cmd->add_option("--metric", args->metric, "Compare median time (speedup = before/after) or TFLOPS (after/before)")
      ->capture_default_str()
      ->check(CLI::IsMember({"us", "tflops"}));
  cmd->add_option("--threshold", args->threshold_pct, "Floor in percent: the median speedup must differ from 1 by more than this (and the "
                  "p10..p90 intervals must not overlap) to count as improved/regressed")
      ->capture_default_str()
      ->check(non_negative_finite());
  cmd->add_option("--role", args->role, "Which rows to compare: dispatch (what the runtime runs), baseline, candidate")
      ->capture_default_str()
      ->check(CLI::IsMember({"dispatch", "baseline", "candidate"}));
  cmd->add_option("--backend", args->backend, "Only rows of this backend (e.g. cublaslt, aiter-asm)");
  add_grouping_options(cmd, args->grouping);
  auto* json = cmd->add_flag("--json", args->json, "Print only JSON on stdout");
  cmd->add_flag("--csv", args->csv, "Print one CSV line per shape on stdout")->excludes(json);
  cmd->callback([args] { run(*args); });
}

}  // namespace cktune::cli
