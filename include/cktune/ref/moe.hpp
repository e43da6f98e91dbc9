#pragma once
// Fused MoE (2 stages, g1u1) reference and AITER's moe_sorting.
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "cktune/core/names.hpp"
#include "cktune/numerics/quant.hpp"
#include "cktune/numerics/random.hpp"

namespace cktune {

// ---- sorting ----------------------------------------------------------------------------------

// Sorted ids pack (slot << 24) | token; padding entries hold (topk << 24) | tokens.
inline int32_t moe_pack(int slot, int token) { return static_cast<int32_t>((static_cast<uint32_t>(slot) << 24) | static_cast<uint32_t>(token)); }
inline int moe_token_of(int32_t id) { return static_cast<int>(static_cast<uint32_t>(id) & 0xffffffu); }
inline int moe_slot_of(int32_t id) { return static_cast<int>(static_cast<uint32_t>(id) >> 24); }

struct MoeSorting {
  int tokens = 0, topk = 0, experts = 0, block_m = 0;
  // Capacity AITER allocates: tokens*topk + experts*block_m - topk entries.
  std::vector<int32_t> sorted_ids;         // packed ids, pad value after each expert's last pair
  std::vector<float> sorted_weights;       // topk_weights of each pair, 0 for padding
  std::vector<int32_t> sorted_expert_ids;  // one per block of block_m entries, -1 past the last used block
  int32_t num_valid_ids = 0;               // entries in used blocks (a multiple of block_m)

  int32_t pad_value() const { return moe_pack(topk, tokens); }
  int num_blocks() const { return block_m > 0 ? num_valid_ids / block_m : 0; }
};

// AITER's semantics: experts in increasing id order; within an expert, pairs in (token, slot)
// order; each expert's pairs padded up to a multiple of block_m; experts with no pairs get no block.
// With an expert mask (1 = local, 0 = not), pairs routed to masked experts are dropped and the
// remaining experts are renumbered densely in sorted_expert_ids (expert - masked experts below it).
// topk_weights may be empty (sorted_weights are then 0). Throws Error on out-of-range ids, tokens
// >= 2^24 or topk >= 256 (they would not fit the packing).
MoeSorting moe_sorting(std::span<const int32_t> topk_ids, std::span<const float> topk_weights, int tokens, int topk,
                       int experts, int block_m, std::span<const int32_t> expert_mask = {});

// ---- 2-stage fused MoE ----------------------------------------------------------------------------

enum class Activation { Silu, Gelu };
using ActivationName = EnumName<Activation>;
inline constexpr ActivationName kActivationNames[] = {
    {Activation::Silu, "ActivationType.Silu"},
    {Activation::Gelu, "ActivationType.Gelu"},
};
std::string_view to_string(Activation a);
std::optional<Activation> activation_from_string(std::string_view s);  // with or without "ActivationType."
// silu(x) = x / (1 + e^-x); gelu is the exact erf form (torch's F.gelu default).
double apply_activation(Activation a, double x);

struct MoeParams {
  Activation act = Activation::Silu;
  bool doweight_stage1 = false;           // routed weight applied to the stage-1 output instead of stage 2
  QuantType quant = QuantType::Per1x128;  // must equal MoeInputs::quant
  int block_m = 32;                       // only used by sorting-based kernels; the reference ignores it
};

// Stage-1 output for every (token, slot) pair: a = act(h[:inter]) * h[inter:] (times the routed
// weight when doweight_stage1), h = x_t . w1[e]^T. `a` holds the values rounded to bf16, the tensor
// the two stages exchange; for a blockscale stage 2 it is re-quantised per 1x128 into aq/a_scale.
struct MoeStage1Out {
  int tokens = 0, topk = 0, inter_dim = 0;
  std::vector<float> a;         // [T, topk, inter]
  std::vector<uint8_t> aq;      // [T*topk, inter]               (Per1x128 only)
  std::vector<float> a_scale;   // [T*topk, ceil(inter/128)]     (Per1x128 only)
};

// Stage 1 exact (double accumulation) for all tokens.
MoeStage1Out ref_moe_stage1(const MoeInputs& in, const MoeParams& p, int threads = 0);
// Re-quantises a (per 1x128) into aq/a_scale when the inputs are blockscale; no-op otherwise. Kernels
// that produce their own stage-1 output call this to build their stage-2 operand the same way.
void requantize_stage1(MoeStage1Out& s1, const MoeInputs& in, int threads = 0);
// Stage 2: out[t, :] = sum over slots of w_tk * (a_(t,slot) . w2[e]^T) (w_tk = 1 when
// doweight_stage1). out is [T, model_dim] fp32, unrounded.
void ref_moe_stage2(const MoeInputs& in, const MoeParams& p, const MoeStage1Out& s1, float* out, int threads = 0);
// Both stages (stage-1 output rounded to bf16 and, for blockscale, re-quantised in between).
void ref_moe_2stages(const MoeInputs& in, const MoeParams& p, float* out, int threads = 0);
// Stage 1 for the listed tokens only: row i of the output (a, aq, a_scale) belongs to tokens[i].
MoeStage1Out ref_moe_stage1_tokens(const MoeInputs& in, const MoeParams& p, std::span<const int64_t> tokens,
                                   int threads = 0);
// Stage 2 for the listed tokens from a stage-1 output whose row i belongs to tokens[i] (as
// ref_moe_stage1_tokens makes it, or a kernel's own stage 1 re-quantised with requantize_stage1): out is
// [tokens.size(), model_dim].
void ref_moe_stage2_tokens(const MoeInputs& in, const MoeParams& p, const MoeStage1Out& s1,
                           std::span<const int64_t> tokens, float* out, int threads = 0);
// Only the listed tokens: out is [tokens.size(), model_dim]. For sampled verification of large shapes.
void ref_moe_2stages_tokens(const MoeInputs& in, const MoeParams& p, std::span<const int64_t> tokens, float* out,
                            int threads = 0);

}  // namespace cktune
