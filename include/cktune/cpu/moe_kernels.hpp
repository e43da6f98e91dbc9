#pragma once
// CPU implementations of the 2-stage fused MoE (g1u1), fp32 accumulation, bf16 output:
//   PerToken      - token by token: every (token, slot) pair re-reads its expert's weights. No
//                   sorting; best when few tokens share an expert (decode).
//   ExpertGrouped - AITER's scheme: moe_sorting groups pairs by expert in block_m blocks; each weight
//                   row is decoded once per block and reused by its rows; stage 2 writes per-pair
//                   results that are then reduced per token in slot order (deterministic). Best when
//                   many tokens share experts; block_m trades reuse against padding.
// Both expose the stages separately so a kernel can be checked per stage, as AITER's tuner does.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cktune/core/names.hpp"
#include "cktune/cpu/gemm_kernels.hpp"
#include "cktune/ref/moe.hpp"

namespace cktune {

enum class CpuMoeAlgo { PerToken, ExpertGrouped };
using CpuMoeAlgoName = EnumName<CpuMoeAlgo>;
inline constexpr CpuMoeAlgoName kCpuMoeAlgoNames[] = {{CpuMoeAlgo::PerToken, "per_token"},
                                                      {CpuMoeAlgo::ExpertGrouped, "grouped"}};
std::string_view to_string(CpuMoeAlgo a);

// Planted bugs here: CorruptRow - token T/2 reads its stage-1 activations one element late in
// stage 2; MissingKTail - both stages drop the last 128-block of their reduction; PartialWrite -
// the last max(1, T/8) tokens' outputs (and stage-1 rows) are never stored.
struct CpuMoeParams {
  CpuMoeAlgo algo = CpuMoeAlgo::ExpertGrouped;
  int block_m = 32;  // ExpertGrouped: rows per sorted block (AITER uses 16..128)
  int threads = 1;   // 0 = every hardware thread
  PlantedBug bug = PlantedBug::None;
};

// e.g. "cpu_moe_grouped_bm32_t0", "cpu_moe_per_token_t1".
std::string kernel_name(const CpuMoeParams& p);
bool can_run(const CpuMoeParams& p, const MoeInputs& in, const MoeParams& mp);

// Stage 1 into s1 (a rounded to bf16, then re-quantised per 1x128 for a blockscale stage 2).
// When s1.a already has the right size it is written in place (so a caller's NaN poison shows cells
// left unwritten); otherwise it is allocated filled with poison.
void cpu_moe_stage1(const CpuMoeParams& p, const MoeInputs& in, const MoeParams& mp, MoeStage1Out& s1);
// Stage 2 from a given stage-1 output; out: [T, model_dim] bf16.
void cpu_moe_stage2(const CpuMoeParams& p, const MoeInputs& in, const MoeParams& mp, const MoeStage1Out& s1,
                    uint16_t* out);
void cpu_moe_2stages(const CpuMoeParams& p, const MoeInputs& in, const MoeParams& mp, uint16_t* out);

// The CPU backend's honest candidates for moe_2stages.
std::vector<CpuMoeParams> cpu_moe_candidates();

}  // namespace cktune
