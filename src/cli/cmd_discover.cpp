// cktune discover [--json]: the environment report (docs/cli/discover.md).
#include <cstdio>
#include <memory>

#include "cktune/core/log.hpp"
#include "cktune/discover/discover.hpp"
#include "cli/app.hpp"
#include "cli/common.hpp"

namespace cktune::cli {

namespace {
struct DiscoverCli {
  bool json = false;
  discover::DiscoverOptions options;
  bool no_python = false;
  bool no_git = false;
  bool no_smi = false;
};

void run_discover(const DiscoverCli& o) {
  auto opts = o.options;
  opts.query_python = !o.no_python;
  opts.query_git = !o.no_git;
  opts.query_smi = !o.no_smi;
  auto report = discover::discover(opts, discover::current_environment());
  for (const auto& w : report.warnings) log().debug("discover: {}", w);
  std::string text = o.json ? discover::to_json(report).dump(2) + "\n" : discover::render_text(report);
  std::fwrite(text.data(), 1, text.size(), stdout);
}
}  // namespace

void register_discover(CLI::App& app) {
  auto o = std::make_shared<DiscoverCli>();
  auto* cmd = app.add_subcommand("discover", "Report GPUs, runtime, AITER/sglang/vLLM installs, AITER_CONFIG_* tables and this build");
  cmd->add_flag("--json", o->json, "Print only JSON on stdout");
  cmd->add_option("--python", o->options.python, "Python interpreter whose packages are reported")
      ->capture_default_str();
  cmd->add_option("--python-timeout", o->options.python_timeout_s, "Seconds (s) before the Python probe is killed")
      ->capture_default_str()
      ->check(positive_finite());
  cmd->add_flag("--no-python", o->no_python, "Skip the Python probe (AITER, sglang, vLLM)");
  cmd->add_flag("--no-git", o->no_git, "Do not ask git about the AITER checkout");
  cmd->add_flag("--no-smi", o->no_smi, "Do not ask NVML / rocm-smi for busy state and clocks");
  cmd->callback([o] { run_discover(*o); });
}

}  // namespace cktune::cli
