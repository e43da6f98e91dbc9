#pragma once
// Fused MoE, two stages, FP8 block-scaled (AITER family moe_2stages, q_type per_1x128, g1u1, SiLU):
// the hand-written stage-1 and stage-2 instance tables.
//
// The routed (token, slot) pairs arrive sorted by expert in blocks of block_m rows (moe_sorting's
// outputs, sorting.hpp). Per block, with e = sorted_expert_ids[block]:
//   stage 1: h = x[token] . w1[e]^T (2*inter columns, K = model_dim), a = silu(h[:inter]) * h[inter:]
//            (times the routed weight when doweight_stage1), rounded to bf16 into a[token*topk+slot].
//   stage 2: a row re-quantised per 1x128 to fp8 (scale = amax/448) as AITER does, y = a . w2[e]^T
//            (model_dim columns, K = inter), y_slots[token*topk+slot] = bf16(w_slot * y); then
//            out[token] = sum over slots, in fp32 (reduce_slots).
// XQ [T,D] fp8 e4m3fn, x_scale [T,D/128]; W1 [E,2I,D] fp8, w1_scale [E,2I/128,D/128];
// W2 [E,D,I] fp8, w2_scale [E,D/128,I/128] (all row-major, plain layout); D and I multiples of 128.
//
// Plain data + can-run + launch, like the GEMM table: listing and naming need no device.
#include <cstddef>
#include <cstdint>
#include <span>

#include "../common/compat.hpp"

namespace cktune::kernels::moe_2stages {

enum class Stage { One = 1, Two = 2 };

// The inner loop an instance runs on: the fp8 warp MMA (sm_89+, cp.async pipeline) or Hopper's wgmma
// with TMA weight loads and a warp-specialised pipeline (sm_90a; both stages, stages_wgmma.cuh).
enum class Engine { WarpMma = 0, Wgmma = 1 };

struct StageParams {
  int id;            // index into stage_instances(stage); stable
  const char* name;  // unique, stable, built from the fields below
  Stage stage;
  int block_m;       // sorted rows per block (the CSV block_m); the CTA takes a whole block
  int tile_n;        // weight rows per CTA (stage 1: gate + up rows, half each)
  int warps;         // warps per CTA
  int stages;        // shared-memory pipeline depth
  int split_k;       // stage 1 only: CTAs along K reducing through a cluster; 1 = none
  Engine engine;
  bool staged_store = false;  // wgmma: output rows leave through shared memory in 16-byte pieces (else
                              // each thread stores its own 4-byte pairs)
  bool accumulate = false;    // stage 2: adds each routed row into the output (zeroed first by the
                              // sorting, SortArgs::zero_out) instead of writing per-slot rows for reduce_slots
  int col_group = 0;          // wgmma: tiles in groups of this many column tiles, all blocks of a group
                              // before the next; 0 = all column tiles of a block, block after block
  bool paired = false;        // wgmma stage 1: k-blocks through two partial tiles that take turns (`_p2`)
  bool requantize = false;    // stage 1: also writes aq / a_scale, its tile re-quantised per 1x128 (`_q`), so that
                              // the pipeline launches no quantize_stage1
  bool dynamic = false;       // wgmma stage 2: a CTA claims its tiles past the first two at run time (`_dyn`;
                              // Args::tile_counter), so that the CTAs end together
  bool route = false;         // wgmma stage 1: finds its first tile's expert and rows from topk_ids itself (`_r`;
                              // Args::route_stage1; at most kRouteMaxPairs routed pairs and kRouteMaxExperts experts)
};

// Every instance of a stage, in id order.
std::span<const StageParams> stage_instances(Stage stage);

struct Args {
  // routing, from moe_sorting
  const int32_t* sorted_ids;         // [capacity] (slot << 24) | token; pads hold token >= tokens
  const float* sorted_weights;       // [capacity]
  const int32_t* sorted_expert_ids;  // [capacity / block_m]
  const int32_t* num_valid_ids;      // [2]: padded rows in use, tokens
  int max_blocks;                    // capacity / block_m (grids cover min(this, tokens*topk) blocks;
                                     // blocks past num_valid_ids exit)
  int tokens, topk, model_dim, inter_dim, experts;
  bool doweight_stage1;
  // stage 1
  const uint8_t* xq;
  const float* x_scale;
  const uint8_t* w1q;
  const float* w1_scale;
  uint16_t* a;     // [tokens*topk, inter] bf16 bits: stage 1 writes
  uint8_t* aq;     // [tokens*topk, inter] fp8: `a` re-quantised per 1x128 (quantize_stage1), stage 2 reads
  float* a_scale;  // [tokens*topk, inter/128]
  // stage 2
  const uint8_t* w2q;
  const float* w2_scale;
  uint16_t* y_slots;  // [tokens*topk, model_dim] bf16: stage 2 writes each slot's weighted row
  uint16_t* out;      // [tokens, model_dim] bf16: an accumulating stage 2 adds into it
  // the one-launch decode kernel (fused_*): it routes from topk_ids itself instead of the sorting
  const int32_t* topk_ids;     // [tokens, topk]
  const float* topk_weights;   // [tokens, topk]
  int* fused_counts;           // [fused_count_ints()] zeroed once; the kernel leaves it zeroed
  // A `_r` stage-1 row finds its first tile's expert and rows from topk_ids itself, so that its first tile need not
  // wait for the sorting; without this it runs as its plain twin. Set only where topk_ids and topk_weights are what the
  // sorting read, without an expert mask (the pipeline).
  bool route_stage1;
  // A `_dyn` stage 2's claim count and exit count ([2] ints): zeroed once; each launch leaves them zeroed.
  int* tile_counter;
};

// The sizes at which a `_r` stage 1 routes its first tile itself (why_not refuses the rest).
constexpr int kRouteMaxPairs = 512;
constexpr int kRouteMaxExperts = 1024;
constexpr bool route_fits(int tokens, int topk, int experts) {
  return static_cast<long long>(tokens) * topk <= kRouteMaxPairs && experts <= kRouteMaxExperts;
}

// nullptr = can run; else why not. `sm` = compute capability major*10+minor.
const char* why_not(const StageParams& p, int tokens, int model_dim, int inter_dim, int experts, int topk,
                    int sm = 90);

// Whether the kernels of a pipeline of these sizes are launched to overlap the kernel before them
// (programmatic dependent launch, Hopper; gpu::LaunchOpts): each may be scheduled while the previous
// one finishes, and waits for it before it reads anything. It pays where launches are short (H200,
// DeepSeek-V3: 1 token 37.6 -> 32.8 us, 64 tokens 328 -> 319) and cost 2.5% at 16384 tokens
// (2629 -> 2691 us, three alternating runs; docs/perf.md), so only pipelines of up to 16384 routed
// pairs use it. The sorting is told through SortArgs::overlap_previous.
bool overlap_launches(int tokens, int topk);

// Enqueue one stage. No allocation, no synchronisation.
gpu::ErrorCode launch(const StageParams& p, const Args& a, gpu::Stream stream);

// aq / a_scale := `a` re-quantised per 1x128 (after a stage 1 without `requantize`, before stage 2).
gpu::ErrorCode quantize_stage1(const Args& a, gpu::Stream stream);
// out[t, :] = bf16(sum of the topk rows y_slots[t*topk + k, :]) (after a stage 2 that does not accumulate).
gpu::ErrorCode reduce_slots(const uint16_t* y_slots, uint16_t* out, int tokens, int topk, int model_dim,
                            gpu::Stream stream);

// ---- One launch for decode: both stages and the sum over the slots in one kernel ("1-stage") ----
// For a few tokens the pipeline's fixed costs (the sorting launch, the chain from sorted ids to the first
// weight load in each stage, the re-quantisation between them) weigh more than its bytes. A fused
// instance runs as one kernel: `ctas` CTAs per expert that the tokens use (found from topk_ids in the
// kernel, no sorting), each CTA streaming a 1/ctas slice of the expert's gate/up rows and then of its
// down-projection rows; the stage-1 output is exchanged through L2 between the expert's CTAs and
// re-quantised per 1x128 in every CTA as quantize_stage1 does; each token's output slice is summed over
// its slots, in slot order, by the CTA that completes it (kernels/moe_2stages/fused.cuh).
struct FusedParams {
  int id;            // index into fused_instances(); stable
  const char* name;  // unique, stable
  int ctas;          // CTAs an expert
  int stages;        // 16 KiB weight slots in flight a CTA
};
std::span<const FusedParams> fused_instances();
// Tokens a fused instance takes at most (an expert's routed rows are one 8-wide MMA tile).
constexpr int kFusedMaxTokens = 8;
// CTAs an expert at most.
constexpr int kFusedMaxCtas = 16;
// nullptr = can run; else why not. `sms`: the GPU's multiprocessors (the grid must be resident at once).
const char* fused_why_not(const FusedParams& p, int tokens, int model_dim, int inter_dim, int experts, int topk,
                          int sm = 90, int sms = 132);
// Enqueue the kernel; Args needs the inputs, topk_ids/topk_weights, a, y_slots, out and fused_counts.
gpu::ErrorCode launch_fused(const FusedParams& p, const Args& a, gpu::Stream stream);
// Ints of fused_counts a launch of these sizes uses.
size_t fused_count_ints(int tokens, int topk);

// The untuned default for a shape: (stage-1 id, stage-2 id) at block_m 32 unless the shape asks for
// another, mirroring AITER's default get_block_size_M heuristic (token*topk/experts).
struct DefaultPick {
  int block_m, stage1, stage2;
};
DefaultPick default_pick(int tokens, int model_dim, int inter_dim, int experts, int topk, int cu_num, int sm = 90);

}  // namespace cktune::kernels::moe_2stages
