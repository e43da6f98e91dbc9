#include "cli/app.hpp"
#include "cktune/core/error.hpp"

namespace cktune::cli {

// Placeholder until the report subcommand lands.
void register_report(CLI::App& app) {
  auto* cmd = app.add_subcommand("report", "report (not built yet)");
  cmd->callback([] { throw Error("'report' is not built yet"); });
}

}  // namespace cktune::cli
