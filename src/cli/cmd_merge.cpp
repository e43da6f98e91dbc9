#include "cli/app.hpp"
#include "cktune/core/error.hpp"

namespace cktune::cli {

// Placeholder until the merge subcommand lands.
void register_merge(CLI::App& app) {
  auto* cmd = app.add_subcommand("merge", "merge (not built yet)");
  cmd->callback([] { throw Error("'merge' is not built yet"); });
}

}  // namespace cktune::cli
