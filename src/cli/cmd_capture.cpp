// `cktune capture LOG... [-o DIR] [--json]` and `cktune capture --model NAME --tp N`: docs/cli/capture.md.
#include <algorithm>
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "cktune/capture/capture.hpp"
#include "cktune/core/error.hpp"
#include "cktune/core/log.hpp"
#include "cli/app.hpp"

namespace cktune::cli {

namespace {

struct CaptureArgs {
  std::vector<std::string> inputs;
  std::string out_dir = ".";
  bool json = false;
  std::string dump_family = "a8w8_blockscale";
  std::string m_sweep;  // empty: observed; given without a value: pow2
  bool token_sweep = false;
  bool append = false;
  bool dry_run = false;
  std::string model;
  std::string model_config;
  int tp = 1;
  std::string arch = "gfx942";
  std::vector<std::string> gemm_families = {"a8w8_blockscale"};
  bool no_fuse_shared = false;
};

Family family_arg(const std::string& name, std::string_view option) {
  if (auto f = family_from_name(name)) return *f;
  std::vector<std::string_view> names;
  for (Family f : kAllFamilies) names.push_back(family_name(f));
  throw Error(fmt::format("{} {}: no such family", option, name), fmt::format("families: {}", fmt::join(names, ", ")));
}

capture::CaptureOptions to_options(const CaptureArgs& a, const CLI::Option* m_sweep_opt) {
  capture::CaptureOptions o;
  o.inputs = a.inputs;
  o.out_dir = a.out_dir;
  o.dump_family = family_arg(a.dump_family, "--dump-family");
  if (m_sweep_opt->count() > 0) {
    const std::string name = a.m_sweep.empty() ? "pow2" : a.m_sweep;
    auto s = capture::m_sweep_from_name(name);
    if (!s || *s == capture::MSweep::Observed)
      throw Error(fmt::format("--m-sweep {}: expected pow2 or vllm", name),
                  "a log file right after --m-sweep is taken as its value: write --m-sweep=pow2 or put the "
                  "logs first");
    o.m_sweep = *s;
    o.preset_m_sweep = *s;
  }
  o.token_sweep = a.token_sweep;
  o.append = a.append;
  o.dry_run = a.dry_run;
  o.model = a.model;
  o.model_config = a.model_config;
  o.plan.tp = a.tp;
  o.plan.arch = a.arch;
  o.plan.fuse_shared_experts = !a.no_fuse_shared;
  o.preset_gemm_families.clear();
  for (const auto& name : a.gemm_families) {
    const Family f = family_arg(name, "--gemm-family");
    if (std::find(o.preset_gemm_families.begin(), o.preset_gemm_families.end(), f) == o.preset_gemm_families.end())
      o.preset_gemm_families.push_back(f);
  }
  return o;
}

void run(const CaptureArgs& a, const CLI::Option* m_sweep_opt) {
  capture::CaptureReport report = capture::run_capture(to_options(a, m_sweep_opt));
  for (const auto& w : report.warnings) log().warn("{}", w);
  if (a.json) {
    std::fputs((capture::report_json(report).dump(1) + "\n").c_str(), stdout);
  } else {
    std::fputs(capture::report_text(report).c_str(), stdout);
  }
}

}  // namespace

void register_capture(CLI::App& app) {
  auto args = std::make_shared<CaptureArgs>();
  auto* cmd = app.add_subcommand(
      "capture", "Server logs and/or a model preset -> AITER untuned CSVs (one per family), with call counts");
  cmd->add_option("logs", args->inputs, "Log files; - reads stdin; .gz files are decompressed");
  cmd->add_option("-o,--output-dir", args->out_dir, "Folder for the untuned CSVs (AITER's default names)")
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "Print the summary as JSON on stdout");
  cmd->add_option("--dump-family", args->dump_family,
                  "Family that sglang [GEMM_shape_dump] csv_row lines count under")
      ->capture_default_str();
  auto* m_sweep = cmd->add_option("--m-sweep", args->m_sweep,
                                  "Add an M sweep to every GEMM key: pow2 (1..32768, the default value) or vllm "
                                  "(1,2,4,8..512 step 8,1024,8192)")
                      ->expected(0, 1);
  cmd->add_flag("--token-sweep", args->token_sweep, "Add tokens 1,2,4..32768 to every fused-MoE key");
  cmd->add_flag("--append", args->append, "Merge into existing untuned files instead of replacing them");
  cmd->add_flag("--dry-run", args->dry_run, "Report only; write no file");
  cmd->add_option("--model", args->model, "Model preset, e.g. deepseek-v3, qwen3-235b-a22b (files: $CKTUNE_MODELS_DIR, else "
                  "<bin>/../share/cktune/models, else the source tree's configs/models)");
  cmd->add_option("--model-config", args->model_config, "A Hugging Face config.json to derive shapes from");
  cmd->add_option("--tp", args->tp, "Tensor-parallel degree (GPUs per model replica) for --model / --model-config")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--arch", args->arch, "Target arch for preset FP8 dtypes")
      ->capture_default_str()
      ->check(CLI::IsMember({"gfx942", "gfx950"}));
  cmd->add_option("--gemm-family", args->gemm_families,
                  "Families the preset's linear layers are written under, comma-separated (e.g. a8w8,a8w8_bpreshuffle)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_flag("--no-fuse-shared-experts", args->no_fuse_shared,
                "DeepSeek presets: keep shared experts as separate GEMMs instead of one more fused-MoE expert");
  cmd->callback([args, m_sweep] { run(*args, m_sweep); });
}

}  // namespace cktune::cli
