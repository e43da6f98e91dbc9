#include "cli/measure_options.hpp"

#include "cli/common.hpp"

namespace cktune::cli {

void add_measure_options(CLI::App* cmd, MeasureOptions& o, std::string& gpus_text) {
  cmd->add_option("--device", o.device,
                  "Where to run: auto (the GPU when this build has a GPU backend and one is visible, else the CPU), cpu or gpu")
      ->check(CLI::IsMember({"auto", "cpu", "gpu"}))
      ->capture_default_str();
  cmd->add_option("--mp", o.mp, "Worker processes: one per GPU (at most the visible GPUs); on the CPU, parallel workers")
      ->capture_default_str();
  cmd->add_option("--gpus", gpus_text, "GPU indices to use, e.g. 0,2,5 (overrides --mp)");
  cmd->add_option("--warmup", o.protocol.warmup, "Untimed launches before timing (count)")->capture_default_str();
  cmd->add_option("--iters", o.protocol.iters, "Timed launches; the median is reported (count)")->capture_default_str();
  cmd->add_option("--min-time-ms", o.protocol.min_time_ms,
                  "Keep timing until this much total kernel time (milliseconds; 0 = --iters alone)")
      ->capture_default_str();
  cmd->add_option("--settle-ms", o.protocol.settle_ms,
                  "Drop the first timed launches of a kernel of 100 us or longer until they add up to this much "
                  "(or 40 launches), so that the GPU's clocks have settled under the load (milliseconds; default: "
                  "100 on the GPU, 0 = off, on the CPU off)");
  cmd->add_option("--rotate", o.protocol.rotate,
                  "Input sets rotated through (count; 0 = enough to exceed the last-level cache twice)")
      ->capture_default_str();
  cmd->add_option("--seed", o.protocol.seed, "Seed of the random inputs")->capture_default_str();
  cmd->add_option("--routing", o.protocol.routing,
                  "MoE only: how the random tokens are routed to experts: uniform, or skewed (seeded Zipf-like "
                  "expert popularity)")
      ->check(CLI::IsMember({"uniform", "skewed"}))
      ->capture_default_str();
  cmd->add_option("--errRatio", o.err_ratio,
                  "Largest errRatio (fraction of mismatching outputs) that passes; default 0.05 for GEMMs, 0.1 for MoE");
  cmd->add_option("--max-row-errRatio", o.max_row_err_ratio, "Largest errRatio of any single output row (fraction)")
      ->capture_default_str();
  cmd->add_option("--timeout", o.timeout_s, "Seconds a candidate may take from its first launch to its result")
      ->capture_default_str();
  cmd->add_option("--prepare-timeout", o.prepare_timeout_s, "Seconds input generation and the reference may take")
      ->capture_default_str();
  cmd->add_option("--stall-timeout", o.stall_timeout_s,
                  "Seconds a candidate may go without any of its launches completing before it counts as hung "
                  "(default: 60 on a GPU, off on the CPU; 0 = off)");
}

void finish_measure_options(MeasureOptions& o, const std::string& gpus_text) {
  if (!gpus_text.empty()) o.gpus = parse_int_list(gpus_text, "--gpus");
  o.verbosity = verbosity();
  o.validate();
}

}  // namespace cktune::cli
