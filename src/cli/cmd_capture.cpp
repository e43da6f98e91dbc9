#include "cli/app.hpp"
#include "cktune/core/error.hpp"

namespace cktune::cli {

// Placeholder until the capture subcommand lands.
void register_capture(CLI::App& app) {
  auto* cmd = app.add_subcommand("capture", "capture (not built yet)");
  cmd->callback([] { throw Error("'capture' is not built yet"); });
}

}  // namespace cktune::cli
