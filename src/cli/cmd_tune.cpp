#include "cli/app.hpp"
#include "cktune/core/error.hpp"

namespace cktune::cli {

// Placeholder until the tune subcommand lands.
void register_tune(CLI::App& app) {
  auto* cmd = app.add_subcommand("tune", "tune (not built yet)");
  cmd->callback([] { throw Error("'tune' is not built yet"); });
}

}  // namespace cktune::cli
