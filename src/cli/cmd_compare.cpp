#include "cli/app.hpp"
#include "cktune/core/error.hpp"

namespace cktune::cli {

// Placeholder until the compare subcommand lands.
void register_compare(CLI::App& app) {
  auto* cmd = app.add_subcommand("compare", "compare (not built yet)");
  cmd->callback([] { throw Error("'compare' is not built yet"); });
}

}  // namespace cktune::cli
