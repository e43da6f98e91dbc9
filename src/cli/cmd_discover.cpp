#include "cli/app.hpp"
#include "cktune/core/error.hpp"

namespace cktune::cli {

// Placeholder until the discover subcommand lands.
void register_discover(CLI::App& app) {
  auto* cmd = app.add_subcommand("discover", "discover (not built yet)");
  cmd->callback([] { throw Error("'discover' is not built yet"); });
}

}  // namespace cktune::cli
