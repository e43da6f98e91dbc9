#pragma once
// AITER's moe_sorting on the GPU: the exact outputs of the CPU reference cktune::moe_sorting()
// (include/cktune/ref/moe.hpp; ../shared/docs/aiter-kernels.md §6).
//
//   sorted_ids        [capacity]   experts in increasing id order; within an expert the routed pairs in
//                                  (token, slot) order packed as (slot << 24) | token; each expert's run
//                                  padded with (topk << 24) | tokens up to a multiple of block_m;
//                                  experts with no pair (or masked) get no rows
//   sorted_weights    [capacity]   topk_weights of each pair, 0 for padding
//   sorted_expert_ids [max_blocks] one expert id per block of block_m rows; with an expert mask the
//                                  local id (expert - masked experts below it); -1 past the last block
//   num_valid_ids     [2]          {rows in used blocks (a multiple of block_m), tokens}
//   capacity = tokens*topk + experts*block_m - topk, max_blocks = ceil(capacity / block_m)
//
// Defined cells: with fill_unused (the default) every cell of the four outputs is written, equal to
// the reference everywhere (pad value / 0 / -1 past num_valid_ids[0] and past the last used block).
// Without it only sorted_ids/sorted_weights [0, num_valid_ids[0]), sorted_expert_ids
// [0, num_valid_ids[0] / block_m) and num_valid_ids are written (AITER's kernels read no more); the
// rest keeps whatever it held.
//
// The output buffer an adding stage 2 accumulates into (AITER's moe_buf) can be zeroed by the same
// launches (SortArgs::zero_out), as AITER's moe_sorting does: blocks of their own, beside the sorting.
//
// A stable counting sort; no key sort is needed since the keys are expert ids. Two paths, chosen by
// sort_path() unless SortArgs::path forces one:
//  - SingleBlock: tokens*topk <= 8192 and experts <= 1024 (Auto takes it wherever it applies): one launch;
//    a thread block per 1024 pairs sorts them (each wave ranks its share of the pairs among equal experts
//    with a match instruction and per-wave counters in shared memory, a prefix over the waves and a block
//    scan over the experts give every pair its row; past one block, each also counts all pairs, and those
//    before its chunk, with shared-memory atomics); a few blocks beside them count and scan again and
//    write the pad rows and the block experts; the other blocks of the grid zero zero_out. No workspace.
//  - MultiBlock: anything up to capacity < 2^31 and experts <= 2048: three launches: ranks within
//    chunks of 2048 pairs and a per-chunk count of each expert; one block scans the counts (over the
//    chunks per expert, then over the experts); the scatter/fill kernel writes the outputs while its
//    extra blocks zero zero_out. Needs sort_workspace_bytes().
// Every launch re-initialises what it reads from the workspace: calls are repeatable on the same
// buffers, and the workspace carries nothing between calls.
//
// Expert ids outside [0, experts) are dropped like pairs of masked experts (the reference throws).
// Nothing here names a vendor type beyond compat.hpp; CUB / rocPRIM live in kernels/common/prim.hpp.
#include <cstddef>
#include <cstdint>

#include "../common/compat.hpp"

namespace cktune::kernels::moe_2stages {

enum class SortPath { Auto, SingleBlock, MultiBlock };

inline constexpr int kSortSingleBlockMaxPairs = 8192;   // tokens*topk handled by one thread block
// Auto takes SingleBlock up to this many pairs: its one launch beats the three of MultiBlock at every size
// it takes since past 1024 pairs a block ranks each chunk of 1024 (H200, 200 back-to-back calls, block_m
// 64, with the zeroing of the [tokens, 7168] output: DeepSeek-V3 6.2 against 10.2 us at 2048 pairs, 7.3
// against 12.6 at 4096, 11.6 against 16.1 at 8192; Qwen3.5 (E=512, topk 10) 8.0 against 15.0 at 5120;
// docs/perf.md, 2026-11-25). Until then one block ranked every pair (14.5 us at 4096) and Auto stopped
// at 2560.
inline constexpr int kSortAutoSingleBlockPairs = kSortSingleBlockMaxPairs;
inline constexpr int kSortSingleBlockMaxExperts = 1024;
inline constexpr int kSortMaxExperts = 2048;

struct SortArgs {
  const int32_t* topk_ids = nullptr;      // [tokens, topk]
  const float* topk_weights = nullptr;    // [tokens, topk]; nullptr: sorted_weights are all 0
  const int32_t* expert_mask = nullptr;   // [experts], nonzero = local; nullptr: every expert is local
  int32_t* sorted_ids = nullptr;          // [sort_capacity()]
  float* sorted_weights = nullptr;        // [sort_capacity()]; nullptr: not written
  int32_t* sorted_expert_ids = nullptr;   // [sort_max_blocks()]
  int32_t* num_valid_ids = nullptr;       // [2]
  int tokens = 0, topk = 0, experts = 0, block_m = 0;
  bool fill_unused = true;                // also write the cells past the used rows/blocks (see above)
  SortPath path = SortPath::Auto;         // tests force one; Auto = sort_path()
  void* workspace = nullptr;              // sort_workspace_bytes() bytes, any alignment (the size has slack)
  size_t workspace_bytes = 0;
  void* zero_out = nullptr;               // nullptr or zero_bytes to set to 0 (16-byte aligned, a multiple of 16)
  size_t zero_bytes = 0;
  bool overlap_previous = false;          // launch to overlap the kernel before it (gpu::LaunchOpts; its
                                          // kernels wait for that one before they read or write anything)
};

// tokens*topk + experts*block_m - topk (entries of sorted_ids / sorted_weights); 0 for bad sizes.
size_t sort_capacity(int tokens, int topk, int experts, int block_m);
// ceil(sort_capacity / block_m) (entries of sorted_expert_ids); 0 for bad sizes.
size_t sort_max_blocks(int tokens, int topk, int experts, int block_m);

// nullptr = sort() can run these sizes (on `path`); otherwise a sentence saying why not.
const char* sort_why_not(int tokens, int topk, int experts, int block_m, SortPath path = SortPath::Auto);

// The path Auto takes for these sizes.
SortPath sort_path(int tokens, int topk, int experts);

// Device scratch sort() needs (0 on the SingleBlock path); no device needed to answer.
size_t sort_workspace_bytes(int tokens, int topk, int experts, int block_m, SortPath path = SortPath::Auto);

// Enqueue the sorting (and the zeroing of zero_out) on `stream`. No synchronisation, no allocation.
// Returns kErrorInvalidValue when sort_why_not() objects, a required pointer is null, the workspace is
// too small or zero_out is misaligned; otherwise the launch error, if any.
gpu::ErrorCode sort(const SortArgs& a, gpu::Stream stream);

}  // namespace cktune::kernels::moe_2stages
