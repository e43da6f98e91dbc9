#pragma once
// One spdlog logger for the whole program, writing to stderr. Results go to stdout or --output, never here.
#include <spdlog/spdlog.h>

namespace cktune {

spdlog::logger& log();

// -q = -1, default = 0, -v = 1, -vv = 2 (trace).
void set_verbosity(int level);

}  // namespace cktune
