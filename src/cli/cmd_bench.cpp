#include "cli/app.hpp"
#include "cktune/core/error.hpp"

namespace cktune::cli {

// Placeholder until the bench subcommand lands.
void register_bench(CLI::App& app) {
  auto* cmd = app.add_subcommand("bench", "bench (not built yet)");
  cmd->callback([] { throw Error("'bench' is not built yet"); });
}

}  // namespace cktune::cli
