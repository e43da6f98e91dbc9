#include "cktune/capture/presets.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <utility>

#include "cktune/core/error.hpp"

namespace cktune::capture {
namespace {

std::set<std::pair<std::int64_t, std::int64_t>> nk(const ModelPlan& p) {
  std::set<std::pair<std::int64_t, std::int64_t>> out;
  for (const auto& g : p.gemms) out.emplace(g.n, g.k);
  return out;
}

PlanOptions opts(int tp, std::string arch = "gfx942") {
  PlanOptions o;
  o.tp = tp;
  o.arch = std::move(arch);
  return o;
}

// Worked by hand from the public config (hidden 7168, q_lora 1536, kv_lora 512, nope 128, rope 64,
// v_head 128, 128 heads, intermediate 18432, moe_intermediate 2048): TP8.
TEST(Presets, DeepseekV3AtTp8) {
  ModelPlan p = plan_preset("deepseek-v3", opts(8, "gfx950"));
  std::set<std::pair<std::int64_t, std::int64_t>> want = {
      {1536 + 512 + 64, 7168},      // fused_qkv_a_proj_with_mqa (replicated)
      {16 * (128 + 64), 1536},      // q_b_proj
      {16 * (128 + 128), 512},      // kv_b_proj
      {7168, 16 * 128},             // o_proj
      {2 * 18432 / 8, 7168},        // dense gate_up
      {7168, 18432 / 8},            // dense down
  };
  EXPECT_EQ(nk(p), want);
  ASSERT_EQ(p.moes.size(), 1u);
  // Exactly the key sglang prints for DeepSeek-V3 at TP8 on gfx950 (shared expert fused: 257 / 9).
  EXPECT_EQ(p.moes[0].key(),
            "7168,256,257,9,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,torch.float8_e4m3fn,"
            "QuantType.per_1x128,1,0");
  EXPECT_TRUE(p.warnings.empty());
}

TEST(Presets, DeepseekR1IsAnAliasAndGfx942UsesFnuz) {
  ModelPlan p = plan_preset("DeepSeek-R1", opts(8));
  EXPECT_EQ(p.fp8_dtype, "torch.float8_e4m3fnuz");
  EXPECT_NE(p.moes.at(0).key().find("torch.float8_e4m3fnuz,torch.float8_e4m3fnuz"), std::string::npos);
}

TEST(Presets, DeepseekSharedExpertsUnfused) {
  PlanOptions o = opts(8);
  o.fuse_shared_experts = false;
  ModelPlan p = plan_preset("deepseek-v3", o);
  EXPECT_TRUE(nk(p).count({2 * 2048 / 8, 7168}));
  EXPECT_TRUE(nk(p).count({7168, 2048 / 8}));
  EXPECT_EQ(p.moes.at(0).expert, 256);
  EXPECT_EQ(p.moes.at(0).topk, 8);
}

// AITER's own qwen3_235b tables list exactly these (N,K) for TP8/TP4.
TEST(Presets, Qwen3_235bMatchesAiterTables) {
  ModelPlan p8 = plan_preset("qwen3-235b-a22b", opts(8));
  EXPECT_EQ(nk(p8), (std::set<std::pair<std::int64_t, std::int64_t>>{{1280, 4096}, {4096, 1024}}));
  EXPECT_EQ(p8.moes.at(0).inter_dim, 192);
  EXPECT_FALSE(p8.warnings.empty());  // 192 is not a whole number of 128-wide blocks
  ModelPlan p4 = plan_preset("qwen3-235b-a22b", opts(4, "gfx950"));
  EXPECT_EQ(nk(p4), (std::set<std::pair<std::int64_t, std::int64_t>>{{2304, 4096}, {4096, 2048}}));
  EXPECT_EQ(p4.moes.at(0).key(),
            "4096,384,128,8,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,torch.float8_e4m3fn,"
            "QuantType.per_1x128,1,0");
  EXPECT_TRUE(p4.warnings.empty());
}

TEST(Presets, Qwen3CoderAtTp4) {
  ModelPlan p = plan_preset("qwen3-coder-480b-a35b", opts(4));
  // qkv: (96/4 + 2*8/4) * 128 = 3584; o_proj K = 96/4*128 = 3072.
  EXPECT_EQ(nk(p), (std::set<std::pair<std::int64_t, std::int64_t>>{{3584, 6144}, {6144, 3072}}));
  EXPECT_EQ(p.moes.at(0).inter_dim, 640);
  EXPECT_EQ(p.moes.at(0).expert, 160);
}

// Llama 4 at TP <= 8 (hidden 5120, 40 q / 8 kv heads of 128, expert width 8192, dense width 16384):
// qkv, o_proj, the shared expert, and the dense layers when MoE layers are interleaved with dense ones
// (Maverick: every other layer; Scout: every layer is MoE).
void expect_llama4(const char* preset, int tp, std::int64_t experts, bool dense_layers) {
  ModelPlan p = plan_preset(preset, opts(tp));
  std::set<std::pair<std::int64_t, std::int64_t>> want = {
      {(40 / tp + 2 * (8 / tp)) * 128, 5120},  // qkv
      {5120, 40 / tp * 128},                   // o_proj
      {2 * 8192 / tp, 5120},                   // shared expert (intermediate_size)
      {5120, 8192 / tp},
  };
  if (dense_layers) {  // intermediate_size_mlp
    want.insert({2 * 16384 / tp, 5120});
    want.insert({5120, 16384 / tp});
  }
  EXPECT_EQ(nk(p), want) << preset << " TP" << tp;
  const PresetMoe& m = p.moes.at(0);
  EXPECT_EQ(m.model_dim, 5120);
  EXPECT_EQ(m.inter_dim, 8192 / tp);
  EXPECT_EQ(m.expert, experts);
  EXPECT_EQ(m.topk, 1);
  EXPECT_TRUE(m.doweight_stage1);
}

TEST(Presets, Llama4MaverickAtTp8) { expect_llama4("llama-4-maverick", 8, 128, true); }

TEST(Presets, Llama4ScoutAtTp4And8) {
  expect_llama4("llama-4-scout", 4, 16, false);
  expect_llama4("meta-llama/Llama-4-Scout-17B-16E-Instruct", 8, 16, false);
}

TEST(Presets, KvHeadsReplicatedBeyondTheirCount) {
  nlohmann::json cfg = {{"architectures", {"Qwen3MoeForCausalLM"}}, {"hidden_size", 4096},
                        {"num_attention_heads", 64},                {"num_key_value_heads", 4},
                        {"head_dim", 128},                          {"intermediate_size", 12288}};
  ModelPlan p = plan_model(cfg, "x", "x.json", opts(16));
  // 4 q heads + 2 * 1 replicated kv head per rank.
  EXPECT_EQ(p.gemms.at(0).n, (4 + 2) * 128);
  // No experts: a dense model with gate_up / down and a warning about the missing quantization_config.
  EXPECT_EQ(p.gemms.size(), 4u);
  EXPECT_TRUE(p.moes.empty());
  EXPECT_FALSE(p.warnings.empty());
}

TEST(Presets, TpMustDivideHeads) {
  EXPECT_THROW(plan_preset("llama-4-maverick", opts(3)), Error);
}

TEST(Presets, MissingFieldIsNamed) {
  nlohmann::json cfg = {{"hidden_size", 4096}};
  try {
    plan_model(cfg, "x", "cfg.json", opts(1));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("num_attention_heads"), std::string::npos);
  }
}

TEST(Presets, UnknownPresetListsTheOthers) {
  try {
    find_preset("gpt-5");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(e.hint().find("deepseek-v3"), std::string::npos);
  }
  auto names = preset_names();
  EXPECT_GE(names.size(), 4u);
}

TEST(Presets, UnknownArch) { EXPECT_THROW(fp8_dtype_for_arch("gfx1100"), Error); }

}  // namespace
}  // namespace cktune::capture
