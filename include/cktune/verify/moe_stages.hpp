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
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

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

// Stage 2's expected rows for the stage-1 outputs checked last. Within a tune job every pipeline shares its stage 1
// with the other stage 2s of its block_m, so a few distinct stage-1 outputs come back again and again, and recomputing
// the reference's stage 2 for each (all a wgmma stage 1's tokens, whose fp8 roundings differ from the reference's)
// was most of the check's time. An entry is found only by the whole stage-1 output, value for value, so a hit
// returns exactly what the recomputation would. One memo serves one reference (one workload): the tokens, the
// inputs and the reference's rows are not part of the key.
class MoeStage2Memo {
 public:
  // At most `capacity` entries and `max_bytes` bytes of them (a sampled reference's entry is well under 1 MB; a full
  // reference of a small model's many tokens can be tens of MB).
  explicit MoeStage2Memo(size_t capacity = 8, size_t max_bytes = size_t{256} << 20)
      : capacity_(capacity), max_bytes_(max_bytes) {}
  // The expected output rows kept for this stage-1 output (bf16 bits), or nullptr.
  const std::vector<float>* find(std::span<const uint16_t> a);
  // Keeps `expected` for `a`, in place of the entries used longest ago when full.
  void keep(std::span<const uint16_t> a, std::vector<float> expected);
  size_t hits() const { return hits_; }
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::vector<uint16_t> a;
    std::vector<float> expected;
    uint64_t used = 0;
    size_t bytes() const { return a.size() * sizeof(uint16_t) + expected.size() * sizeof(float); }
  };
  std::vector<Entry> entries_;
  size_t capacity_, max_bytes_, bytes_ = 0;
  size_t hits_ = 0;
  uint64_t clock_ = 0;
};

// err_ratio = the larger stage's; stage_err_ratios = {stage 1, stage 2}; the verdict fails when either
// stage fails, and the reason names the stage. Row indices are the output's (tokens). `memo` (optional)
// keeps stage 2's expected rows for the next check of the same stage-1 output.
CheckResult check_moe_stages(const MoeInputs& in, const MoeParams& p, const MoeStageOutputs& o, const Tolerance& tol,
                             int threads = 0, MoeStage2Memo* memo = nullptr);

}  // namespace cktune
