#pragma once
// The options bench and tune share (engine/options.hpp), declared once: the same names, help texts,
// defaults shown in --help, and range checks for both verbs.
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "cktune/engine/options.hpp"

namespace cktune::cli {

// Adds --device, --mp, --gpus, --warmup, --iters, --min-time-ms, --rotate, --seed, --errRatio,
// --max-row-errRatio, --timeout, --prepare-timeout, --stall-timeout to `cmd`. `gpus_text` receives the raw --gpus list;
// call finish_measure_options() in the verb's callback.
void add_measure_options(CLI::App* cmd, MeasureOptions& o, std::string& gpus_text);

// Parses --gpus, fills verbosity, checks every range (Error naming the option otherwise).
void finish_measure_options(MeasureOptions& o, const std::string& gpus_text);

}  // namespace cktune::cli
