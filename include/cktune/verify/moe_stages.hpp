#pragma once
// A fused-MoE pipeline checked stage by stage, as AITER's tuner checks err1 and err2:
//   stage 1: the pipeline's stage-1 output (bf16, before the re-quantisation) against the reference's;
//   stage 2: the pipeline's output against the reference's stage 2 fed the pipeline's own stage-1
//            output, re-quantised the way the reference does it.
// Why not the output against the exact chain alone: stage 1's output is re-quantised to fp8 (3
// mantissa bits) before stage 2, so a stage 1 that is off by ~1e-4 of a value — the fp8 tensor cores'
// own sums — flips some roundings, and each flip moves outputs by a whole fp8 step (docs/arch/numerics.md).
// Checked this way, stage 2's reference is exact for what stage 2 was given, and stage 1 is held to the
// same 1e-2 rule on its own.
#include <cstdint>
#include <span>

#include "cktune/ref/moe.hpp"
#include "cktune/verify/check.hpp"

namespace cktune {

struct MoeStageOutputs {
  std::span<const int64_t> tokens;  // the reference's tokens (all, or the sampled ones), increasing
  const float* ref_a = nullptr;     // [tokens, topk, inter] the reference's stage-1 output (bf16 values)
  const float* ref_out = nullptr;   // [tokens, model_dim] the reference's output (exact chain)
  const uint16_t* a = nullptr;      // [tokens, topk, inter] the pipeline's stage-1 output, bf16 bits
  const uint16_t* out = nullptr;    // [tokens, model_dim] the pipeline's output rows, bf16 bits
  int64_t unwritten_a = 0;          // poison cells over the pipeline's whole stage-1 output
  int64_t unwritten_out = 0;        // poison cells over its whole output
};

// err_ratio = the larger stage's; stage_err_ratios = {stage 1, stage 2}; the verdict fails when either
// stage fails, and the reason names the stage. Row indices are the output's (tokens).
CheckResult check_moe_stages(const MoeInputs& in, const MoeParams& p, const MoeStageOutputs& o, const Tolerance& tol,
                             int threads = 0);

}  // namespace cktune
