// Placeholder registration until the tune engine lands (then cmd_tune.cpp registers the worker).
#include "cli/app.hpp"
#include "cktune/core/error.hpp"

namespace cktune::cli {
void register_worker(CLI::App& app) {
  auto* cmd = app.add_subcommand("worker", "internal");
  cmd->group("");
  cmd->callback([] { throw Error("'worker' is not built yet"); });
}
}  // namespace cktune::cli
