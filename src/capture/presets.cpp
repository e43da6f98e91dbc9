#include "cktune/capture/presets.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/core/io.hpp"

namespace cktune::capture {

namespace fs = std::filesystem;

namespace {

constexpr std::int64_t kDefaultBlock = 128;

struct ArchDtype {
  std::string_view arch;
  std::string_view fp8;
};
// gfx942 (MI300) uses the "fnuz" FP8 encoding, gfx950 (MI355) the OCP one.
constexpr ArchDtype kArchDtypes[] = {
    {"gfx942", "torch.float8_e4m3fnuz"},
    {"gfx950", "torch.float8_e4m3fn"},
};

struct ActName {
  std::string_view hf;
  std::string_view aiter;
};
constexpr ActName kActivations[] = {
    {"silu", "ActivationType.Silu"},
    {"gelu", "ActivationType.Gelu"},
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Field access over a config whose text model may sit under "text_config" (Llama 4 and other
// multimodal configs): the text part first, then the top level.
class Fields {
 public:
  Fields(const nlohmann::json& config, std::string source) : top_(config), source_(std::move(source)) {
    if (config.contains("text_config") && config["text_config"].is_object()) text_ = &config["text_config"];
  }

  const nlohmann::json* find(std::string_view name) const {
    for (const nlohmann::json* j : {text_, &top_}) {
      if (!j) continue;
      auto it = j->find(name);
      if (it != j->end() && !it->is_null()) return &*it;
    }
    return nullptr;
  }
  bool has(std::string_view name) const { return find(name) != nullptr; }

  std::int64_t integer(std::string_view name) const {
    const nlohmann::json* v = find(name);
    if (!v) throw Error(fmt::format("{}: field '{}' is missing", source_, name), "a Hugging Face config.json has it");
    if (!v->is_number_integer() || v->get<std::int64_t>() < 0)
      throw Error(fmt::format("{}: field '{}' is {}, not a non-negative integer", source_, name, v->dump()));
    return v->get<std::int64_t>();
  }
  std::int64_t integer_or(std::string_view name, std::int64_t fallback) const {
    return has(name) ? integer(name) : fallback;
  }
  std::string text_or(std::string_view name, std::string fallback) const {
    const nlohmann::json* v = find(name);
    return v && v->is_string() ? v->get<std::string>() : fallback;
  }
  const std::string& source() const { return source_; }

 private:
  const nlohmann::json& top_;
  const nlohmann::json* text_ = nullptr;
  std::string source_;
};

std::int64_t divide(std::int64_t value, int tp, std::string_view what, const std::string& source) {
  if (value % tp != 0)
    throw Error(fmt::format("{}: {} = {} is not divisible by --tp {}", source, what, value, tp),
                "pick a tensor-parallel degree that divides it");
  return value / tp;
}

struct Builder {
  ModelPlan& plan;
  std::int64_t block_n;
  std::int64_t block_k;

  enum class Split { Column, Row, Replicated };

  void gemm(std::string layer, std::int64_t n, std::int64_t k, Split split, std::string rule) {
    // A sharded dimension that is not a whole number of quantisation blocks cannot be loaded by vLLM or
    // sglang as block-FP8 (they refuse at startup), so the row would never be used.
    if (split == Split::Column && n % block_n != 0)
      plan.warnings.push_back(fmt::format("{}: N = {} per rank is not a multiple of the {}-wide weight block",
                                          layer, n, block_n));
    if (split == Split::Row && k % block_k != 0)
      plan.warnings.push_back(fmt::format("{}: K = {} per rank is not a multiple of the {}-deep weight block",
                                          layer, k, block_k));
    plan.gemms.push_back({std::move(layer), n, k, std::move(rule)});
  }
};

}  // namespace

std::string PresetMoe::key() const {
  return fmt::format("{},{},{},{},{},{},{},{},{},{},{}", model_dim, inter_dim, expert, topk, act_type, dtype,
                     q_dtype_a, q_dtype_w, q_type, use_g1u1 ? 1 : 0, doweight_stage1 ? 1 : 0);
}

std::string fp8_dtype_for_arch(std::string_view arch) {
  for (const auto& a : kArchDtypes)
    if (a.arch == arch) return std::string(a.fp8);
  throw Error(fmt::format("no FP8 dtype rule for arch '{}'", arch), "use --arch gfx942 or --arch gfx950");
}

ModelPlan plan_model(const nlohmann::json& config, const std::string& model, const std::string& source,
                     const PlanOptions& options) {
  if (!config.is_object()) throw Error(fmt::format("{}: not a JSON object", source));
  if (options.tp < 1) throw Error(fmt::format("--tp must be at least 1, not {}", options.tp));
  Fields f(config, source);
  const int tp = options.tp;

  ModelPlan plan;
  plan.model = model;
  plan.source = source;
  plan.tp = tp;
  plan.arch = options.arch;
  plan.fp8_dtype = fp8_dtype_for_arch(options.arch);

  // Weight block size from quantization_config (block FP8 = [128, 128] for every model here).
  std::int64_t block_n = kDefaultBlock, block_k = kDefaultBlock;
  const nlohmann::json* quant = f.find("quantization_config");
  const nlohmann::json* blocks = quant && quant->is_object() && quant->contains("weight_block_size")
                                     ? &(*quant)["weight_block_size"]
                                     : nullptr;
  if (blocks && blocks->is_array() && blocks->size() == 2 && (*blocks)[0].is_number_integer() &&
      (*blocks)[1].is_number_integer()) {
    block_n = (*blocks)[0].get<std::int64_t>();
    block_k = (*blocks)[1].get<std::int64_t>();
  } else {
    plan.warnings.push_back(
        "config has no quantization_config.weight_block_size: assuming block-FP8 with 128x128 weight blocks");
  }
  Builder b{plan, block_n, block_k};
  using Split = Builder::Split;

  const std::int64_t hidden = f.integer("hidden_size");
  const std::int64_t heads = f.integer("num_attention_heads");
  const std::int64_t heads_rank = divide(heads, tp, "num_attention_heads", source);
  const std::string architecture =
      f.find("architectures") && f.find("architectures")->is_array() && !f.find("architectures")->empty()
          ? f.find("architectures")->at(0).get<std::string>()
          : f.text_or("model_type", "");
  const bool is_llama4 = lower(architecture).find("llama4") != std::string::npos;

  // ---- attention ----
  const bool mla = f.has("kv_lora_rank");
  if (mla) {
    const std::int64_t kv_lora = f.integer("kv_lora_rank");
    const std::int64_t nope = f.integer("qk_nope_head_dim");
    const std::int64_t rope = f.integer("qk_rope_head_dim");
    const std::int64_t v_head = f.integer("v_head_dim");
    if (f.has("q_lora_rank")) {
      const std::int64_t q_lora = f.integer("q_lora_rank");
      b.gemm("self_attn.fused_qkv_a_proj_with_mqa", q_lora + kv_lora + rope, hidden, Split::Replicated,
             "N = q_lora_rank + kv_lora_rank + qk_rope_head_dim, K = hidden (replicated)");
      b.gemm("self_attn.q_b_proj", heads_rank * (nope + rope), q_lora, Split::Column,
             "N = heads/tp * (qk_nope + qk_rope), K = q_lora_rank");
    } else {
      b.gemm("self_attn.q_proj", heads_rank * (nope + rope), hidden, Split::Column,
             "N = heads/tp * (qk_nope + qk_rope), K = hidden");
      b.gemm("self_attn.kv_a_proj_with_mqa", kv_lora + rope, hidden, Split::Replicated,
             "N = kv_lora_rank + qk_rope_head_dim, K = hidden (replicated)");
    }
    b.gemm("self_attn.kv_b_proj", heads_rank * (nope + v_head), kv_lora, Split::Column,
           "N = heads/tp * (qk_nope + v_head), K = kv_lora_rank");
    b.gemm("self_attn.o_proj", hidden, heads_rank * v_head, Split::Row, "N = hidden, K = heads/tp * v_head");
  } else {
    const std::int64_t kv_heads = f.integer_or("num_key_value_heads", heads);
    const std::int64_t head_dim = f.integer_or("head_dim", hidden / heads);
    // Fewer KV heads than ranks: each rank keeps one (replicated) KV head.
    const std::int64_t kv_rank = kv_heads >= tp ? divide(kv_heads, tp, "num_key_value_heads", source) : 1;
    b.gemm("self_attn.qkv_proj", (heads_rank + 2 * kv_rank) * head_dim, hidden, Split::Column,
           "N = (heads/tp + 2 * max(1, kv_heads/tp)) * head_dim, K = hidden");
    b.gemm("self_attn.o_proj", hidden, heads_rank * head_dim, Split::Row, "N = hidden, K = heads/tp * head_dim");
  }

  // ---- MLP / MoE ----
  const std::int64_t experts = f.has("n_routed_experts")   ? f.integer("n_routed_experts")
                               : f.has("num_experts")      ? f.integer("num_experts")
                               : f.has("num_local_experts") ? f.integer("num_local_experts")
                                                           : 0;
  // Llama 4 names its dense-layer width intermediate_size_mlp; intermediate_size is the expert width.
  const std::int64_t dense_inter =
      f.has("intermediate_size_mlp") ? f.integer("intermediate_size_mlp") : f.integer_or("intermediate_size", 0);
  bool has_dense = experts == 0;
  if (experts > 0) {
    has_dense = f.integer_or("first_k_dense_replace", 0) > 0 || f.integer_or("decoder_sparse_step", 1) > 1 ||
                f.integer_or("interleave_moe_layer_step", 1) > 1 || f.integer_or("moe_layer_freq", 1) > 1 ||
                (f.find("mlp_only_layers") && f.find("mlp_only_layers")->is_array() &&
                 !f.find("mlp_only_layers")->empty());
  }
  if (has_dense) {
    if (dense_inter == 0) throw Error(fmt::format("{}: field 'intermediate_size' is missing", source));
    const std::int64_t inter_rank = divide(dense_inter, tp, "the dense intermediate size", source);
    b.gemm("mlp.gate_up_proj", 2 * inter_rank, hidden, Split::Column, "N = 2 * intermediate/tp, K = hidden");
    b.gemm("mlp.down_proj", hidden, inter_rank, Split::Row, "N = hidden, K = intermediate/tp");
  }
  if (experts > 0) {
    const std::int64_t moe_inter = f.has("moe_intermediate_size") ? f.integer("moe_intermediate_size")
                                                                  : f.integer("intermediate_size");
    const std::int64_t topk = f.integer("num_experts_per_tok");
    // Llama 4 has one shared expert per MoE layer by construction (no config field for it).
    const std::int64_t shared = f.has("n_shared_experts") ? f.integer("n_shared_experts") : (is_llama4 ? 1 : 0);
    const bool fuse = mla && options.fuse_shared_experts && shared > 0;
    if (shared > 0 && !fuse) {
      const std::int64_t shared_rank = divide(moe_inter * shared, tp, "the shared-expert width", source);
      b.gemm("mlp.shared_experts.gate_up_proj", 2 * shared_rank, hidden, Split::Column,
             "N = 2 * moe_intermediate * n_shared/tp, K = hidden");
      b.gemm("mlp.shared_experts.down_proj", hidden, shared_rank, Split::Row,
             "N = hidden, K = moe_intermediate * n_shared/tp");
    }
    PresetMoe moe;
    moe.layer = "mlp.experts";
    moe.model_dim = hidden;
    moe.inter_dim = divide(moe_inter, tp, "moe_intermediate_size", source);
    moe.expert = experts + (fuse ? shared : 0);
    moe.topk = topk + (fuse ? shared : 0);
    const std::string act = lower(f.text_or("hidden_act", "silu"));
    auto a = std::find_if(std::begin(kActivations), std::end(kActivations), [&](const auto& x) { return x.hf == act; });
    if (a == std::end(kActivations))
      throw Error(fmt::format("{}: hidden_act '{}' has no AITER ActivationType rule", source, act));
    moe.act_type = std::string(a->aiter);
    const std::string torch_dtype = f.text_or("torch_dtype", "bfloat16");
    moe.dtype = torch_dtype.starts_with("torch.") ? torch_dtype : "torch." + torch_dtype;
    moe.q_dtype_a = plan.fp8_dtype;
    moe.q_dtype_w = plan.fp8_dtype;
    moe.q_type = "QuantType.per_1x128";
    moe.use_g1u1 = true;  // gate and up projections fused (SwiGLU)
    // Llama 4 multiplies the router weight into the expert input (apply_router_weight_on_input), which
    // AITER runs as doweight_stage1; the others weight the expert outputs.
    moe.doweight_stage1 = is_llama4;
    moe.rule = fmt::format("model_dim = hidden, inter_dim = moe_intermediate/tp, expert = routed{}, topk = k{}",
                           fuse ? " + shared (fused)" : "", fuse ? " + shared" : "");
    if (moe.inter_dim % block_n != 0)
      plan.warnings.push_back(fmt::format(
          "mlp.experts: inter_dim = {} per rank is not a multiple of the {}-wide weight block (servers use "
          "expert parallelism or a smaller --tp here)",
          moe.inter_dim, block_n));
    plan.moes.push_back(std::move(moe));
  }
  return plan;
}

fs::path presets_dir() {
  if (const char* env = std::getenv("CKTUNE_MODELS_DIR"); env && *env) return env;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path installed = exe.parent_path() / ".." / "share" / "cktune" / "models";
    if (fs::is_directory(installed, ec)) return installed;
  }
  return fs::path(CKTUNE_SOURCE_DIR) / "configs" / "models";
}

namespace {

nlohmann::json read_json(const fs::path& path) {
  std::string text = read_input(path.string());
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(fmt::format("{}: not valid JSON: {}", path.string(), e.what()));
  }
}

std::vector<std::pair<fs::path, std::vector<std::string>>> presets_with_aliases() {
  std::vector<std::pair<fs::path, std::vector<std::string>>> out;
  std::error_code ec;
  fs::path dir = presets_dir();
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".json") continue;
    std::vector<std::string> names{entry.path().stem().string()};
    nlohmann::json j = read_json(entry.path());
    if (j.contains("cktune") && j["cktune"].contains("aliases"))
      for (const auto& a : j["cktune"]["aliases"]) names.push_back(a.get<std::string>());
    out.emplace_back(entry.path(), std::move(names));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<std::string> preset_names() {
  std::vector<std::string> out;
  for (const auto& [path, names] : presets_with_aliases()) {
    std::string line = names.front();
    if (names.size() > 1) {
      std::vector<std::string> aliases(names.begin() + 1, names.end());
      line += fmt::format(" (also {})", fmt::join(aliases, ", "));
    }
    out.push_back(line);
  }
  return out;
}

fs::path find_preset(std::string_view name) {
  const std::string want = lower(name);
  auto presets = presets_with_aliases();
  for (const auto& [path, names] : presets)
    for (const auto& n : names)
      if (lower(n) == want) return path;
  std::vector<std::string> stems;
  for (const auto& [path, names] : presets) stems.push_back(names.front());
  throw Error(fmt::format("no model preset named '{}' in {}", name, presets_dir().string()),
              stems.empty() ? "set CKTUNE_MODELS_DIR to the configs/models folder"
                            : fmt::format("presets: {}; or pass --model-config path/to/config.json",
                                          fmt::join(stems, ", ")));
}

ModelPlan plan_preset(std::string_view name, const PlanOptions& options) {
  fs::path path = find_preset(name);
  return plan_model(read_json(path), path.stem().string(), path.string(), options);
}

ModelPlan plan_config_file(const std::string& path, const PlanOptions& options) {
  if (!file_exists(path)) throw Error(fmt::format("cannot open model config {}", path), "check the path");
  return plan_model(read_json(path), path, path, options);
}

}  // namespace cktune::capture
