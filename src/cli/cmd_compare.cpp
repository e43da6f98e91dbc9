// `cktune compare BEFORE AFTER [--metric us|tflops] [--threshold PCT] [--role R] [--backend B] [--json]`:
// docs/cli/compare.md.
#include <cstdio>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cktune/compare/compare.hpp"
#include "cktune/core/error.hpp"
#include "cli/app.hpp"

namespace cktune::cli {

namespace {

struct CompareArgs {
  std::string before, after;
  std::string metric = "us";
  double threshold_pct = 3.0;
  std::string role = "dispatch";
  std::string backend;
  bool json = false;
};

CompareOptions to_options(const CompareArgs& a) {
  CompareOptions o;
  o.metric = *metric_from_string(a.metric);  // CLI::IsMember checked it
  o.threshold_pct = a.threshold_pct;
  o.role = *result_role_from_string(a.role);
  o.backend = a.backend;
  return o;
}

void run(const CompareArgs& a) {
  // load -> match and compute -> print
  CompareInput before = load_compare_input(a.before);
  CompareInput after = load_compare_input(a.after);
  Comparison c = compare(std::move(before), std::move(after), to_options(a));
  if (a.json) std::fputs((comparison_json(c).dump(1) + "\n").c_str(), stdout);
  else std::fputs(render_comparison_text(c).c_str(), stdout);
}

}  // namespace

void register_compare(CLI::App& app) {
  auto args = std::make_shared<CompareArgs>();
  auto* cmd = app.add_subcommand(
      "compare", "Before/after speedups per shape, summary and breakdown per (N,K) group and size class");
  cmd->add_option("before", args->before, "cktune results file or AITER op-test log/CSV measured before tuning")
      ->required();
  cmd->add_option("after", args->after, "the same after tuning")->required();
  cmd->add_option("--metric", args->metric, "Compare median time (speedup = before/after) or TFLOPS (after/before)")
      ->capture_default_str()
      ->check(CLI::IsMember({"us", "tflops"}));
  cmd->add_option("--threshold", args->threshold_pct, "Percent a speedup must differ from 1 to count as improved/regressed")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1000.0));
  cmd->add_option("--role", args->role, "Which rows to compare: dispatch (what the runtime runs), baseline, candidate")
      ->capture_default_str()
      ->check(CLI::IsMember({"dispatch", "baseline", "candidate"}));
  cmd->add_option("--backend", args->backend, "Only rows of this backend (e.g. cublaslt, aiter-asm)");
  cmd->add_flag("--json", args->json, "Print only JSON on stdout");
  cmd->callback([args] { run(*args); });
}

}  // namespace cktune::cli
