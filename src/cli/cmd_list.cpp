#include "cli/app.hpp"
#include "cktune/core/error.hpp"

namespace cktune::cli {

// Placeholder until the list subcommand lands.
void register_list(CLI::App& app) {
  auto* cmd = app.add_subcommand("list", "list (not built yet)");
  cmd->callback([] { throw Error("'list' is not built yet"); });
}

}  // namespace cktune::cli
