#pragma once
#include <CLI/CLI.hpp>

namespace cktune::cli {

// Builds the app, registers every subcommand, parses, runs, and maps errors to exit codes.
int run(int argc, char** argv);

// One per subcommand, each in cmd_<verb>.cpp: adds the subcommand, its options struct and its callback.
void register_discover(CLI::App& app);
void register_capture(CLI::App& app);
void register_bench(CLI::App& app);
void register_tune(CLI::App& app);
void register_compare(CLI::App& app);
void register_report(CLI::App& app);
void register_merge(CLI::App& app);
void register_list(CLI::App& app);
void register_ck_instances(CLI::App& app);
void register_worker(CLI::App& app);  // internal: the process tune and bench start per device

// Exit code the running subcommand asks for (e.g. merge --check finding duplicates). 0 by default.
void set_exit_code(int code);

}  // namespace cktune::cli
