#pragma once
// Model presets: the block-FP8 linear layers and fused-MoE layers of a model, per tensor-parallel rank,
// derived from Hugging Face config.json fields. configs/models/*.json hold trimmed copies of the public
// configs plus a small "cktune" block (name, aliases, source); --model-config reads a full config.json
// the same way. docs/cli/capture.md has the derivation table.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace cktune::capture {

// One GEMM as one rank runs it: y[M,N] = x[M,K] · W[N,K]ᵀ.
struct PresetGemm {
  std::string layer;  // e.g. "self_attn.q_b_proj"
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::string rule;   // how N and K were derived, for the summary and docs
};

// One fused-MoE configuration (the 11 untuned key columns after token).
struct PresetMoe {
  std::string layer;
  std::int64_t model_dim = 0, inter_dim = 0, expert = 0, topk = 0;
  std::string act_type, dtype, q_dtype_a, q_dtype_w, q_type;
  bool use_g1u1 = true;
  bool doweight_stage1 = false;
  std::string rule;

  // Key text in AITER column order (model_dim,...,doweight_stage1), booleans 1/0.
  std::string key() const;
};

struct PlanOptions {
  int tp = 1;
  std::string arch = "gfx942";  // decides the FP8 dtype: gfx942 -> e4m3fnuz, gfx950 -> e4m3fn
  // DeepSeek shared experts folded into the fused MoE as extra expert(s) (what sglang does on AMD):
  // expert += n_shared, topk += n_shared, and no separate shared-expert GEMMs.
  bool fuse_shared_experts = true;
};

struct ModelPlan {
  std::string model;   // preset name or config path
  std::string source;  // file the fields came from
  int tp = 1;
  std::string arch;
  std::string fp8_dtype;
  std::vector<PresetGemm> gemms;
  std::vector<PresetMoe> moes;
  std::vector<std::string> warnings;  // e.g. a shard that is not a whole number of 128-wide blocks
};

// FP8 dtype string AITER uses on an arch; throws Error for an arch cktune has no rule for.
std::string fp8_dtype_for_arch(std::string_view arch);

// Derive the plan from a config.json object (multimodal configs: their "text_config").
// Throws Error when a field is missing or the TP degree does not divide the heads.
ModelPlan plan_model(const nlohmann::json& config, const std::string& model, const std::string& source,
                     const PlanOptions& options);

// Folder holding the preset files: $CKTUNE_MODELS_DIR, else <exe>/../share/cktune/models,
// else the source tree's configs/models.
std::filesystem::path presets_dir();

// Preset names (file stems) with their aliases, for help and error messages.
std::vector<std::string> preset_names();

// The preset file for `name` (file stem or alias, case-insensitive); throws Error listing the presets.
std::filesystem::path find_preset(std::string_view name);

// find_preset / read config.json + plan_model.
ModelPlan plan_preset(std::string_view name, const PlanOptions& options);
ModelPlan plan_config_file(const std::string& path, const PlanOptions& options);

}  // namespace cktune::capture
