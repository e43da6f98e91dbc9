// AITER's moe_sorting on the GPU (sorting.hpp says what is written): a stable counting sort. The keys
// are expert ids, so no key needs sorting: each pair's row is its expert's padded start, plus the pairs
// of the same expert before it (in flat (token, slot) order).
//
// Ranking, the step both paths share: the pairs are cut into shares, one per wave, each walked in steps
// of one pair a lane. In a step the lanes with the same expert find each other with one match
// instruction (a ballot loop on AMD); a lane's rank is the wave's running count of its expert (per-wave
// counters in shared memory) plus the matching lanes below it, and the lowest of them advances the
// counter. A prefix over the waves of a block, per expert, turns the per-wave ranks into the block's.
//
// SingleBlock (tokens*topk <= 8192, experts <= 1024), one launch: up to 1024 pairs block 0 ranks every
// pair, scans the experts (padded starts, local ids; CUB/rocPRIM block scan) and scatters the pairs; past
// that one ranking block a chunk of 1024 pairs does the same for its chunk, after counting every pair
// (and those before its chunk) with shared-memory atomics for the experts' starts and its chunk's base.
// The next fill_blocks blocks count the pairs per expert again (shared-memory atomics: the counts do
// not depend on the order), run the same scan and write their shares of the pad rows and sorted_expert_ids;
// the blocks after them zero zero_out meanwhile. The cells past the used rows are filled in the same
// kernel while there are at most 32768 of them, by a second kernel beyond that. (Until 2026-11-25 block 0
// ranked every pair, up to 8192: 8.5 us at 2048 pairs, 14.5 at 4096, so Auto sent more than 2560 pairs to
// the three launches. Until 2026-11-24 it also wrote every pad row, its warps walking E/8 experts each
// after the scatter: 8.8 us under ncu at 16 DeepSeek-V3 tokens, block_m 64, for 128 pairs.)
//
// MultiBlock (any size up to capacity < 2^31, experts <= 2048), three launches:
//   rank_kernel:    a block per chunk of 2048 pairs: ranks within the chunk, counts per expert;
//   scan_kernel:    one block: per expert, the exclusive sum of the counts over the chunks (in place),
//                   then the block scan over the experts (writes num_valid_ids);
//   scatter_kernel: each pair to start[e] + chunk base + rank; pad rows, sorted_expert_ids, unused
//                   cells; the blocks past the scatter grid zero zero_out.
// It replaced a device radix sort (CUB onesweep / rocPRIM) and its key, bounds and scan kernels, which
// took 42-49 us at 1024-16384 DeepSeek-V3 tokens on an H200 (docs/perf.md, 2026-11-24).
#include "sorting.hpp"

#include <algorithm>
#include <atomic>
#include <climits>

#include "../common/prim.hpp"

namespace cktune::kernels::moe_2stages {
namespace {

constexpr int kThreads = 256;                       // every sorting block but the scan's
constexpr int kWaves = kThreads / gpu::kWaveSize;   // waves of a block
constexpr int kChunk = 2048;                        // MultiBlock: pairs a rank block takes
constexpr int kRankChunk = 1024;                    // SingleBlock: pairs a ranking block takes
constexpr int kChunkSteps = kChunk / kThreads;      // ... steps of one wave through its share
constexpr int kFillInBlockMax = 32768;  // SingleBlock: cells past the used rows written in-kernel up to this
constexpr int kGridMaxBlocks = 1024;
constexpr int kScanThreads = 512;       // MultiBlock: the one-block scan (1024 spills)
constexpr int kZeroStoresPerThread = 8; // 16-byte stores per thread of a zeroing block, at least
constexpr size_t kAlign = 256;
constexpr int kStaticSmemMargin = 8 * 1024;  // the kernels' static shared memory (block scan storage), at most

constexpr size_t align_up(size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

struct Params {
  const int32_t* topk_ids;
  const float* topk_weights;
  const int32_t* expert_mask;
  int32_t* sorted_ids;
  float* sorted_weights;
  int32_t* sorted_expert_ids;
  int32_t* num_valid_ids;
  int tokens, topk, experts, block_m;
  int n;           // tokens * topk
  int capacity;    // entries of sorted_ids / sorted_weights
  int max_blocks;  // entries of sorted_expert_ids
  bool fill;       // this kernel writes the cells past the used rows / blocks
  uint4* zero;     // zero_out, as 16-byte words
  size_t zero_words;
  int sort_blocks;  // blocks [0, sort_blocks) sort; the rest of the grid zeroes
  int rank_blocks;  // SingleBlock: blocks [0, rank_blocks) rank and scatter the pairs, kRankChunk a block
  int fill_blocks;  // SingleBlock: blocks [rank_blocks, rank_blocks + fill_blocks) write the pad rows
};

__device__ __forceinline__ int32_t pack_id(int slot, int token) {
  return static_cast<int32_t>((static_cast<uint32_t>(slot) << 24) | static_cast<uint32_t>(token));
}

// The key of flat pair i: its expert when local, else `experts` (dropped).
__device__ __forceinline__ unsigned key_of(const Params& p, int i) {
  const int e = p.topk_ids[i];
  const bool local = e >= 0 && e < p.experts && (p.expert_mask == nullptr || p.expert_mask[e] != 0);
  return local ? static_cast<unsigned>(e) : static_cast<unsigned>(p.experts);
}

// The expert that owns row q < num_valid: the last e with pstart[e] <= q. pstart is non-decreasing
// with pstart[0] == 0; the experts without rows that share the owner's start come before it.
__device__ __forceinline__ int owner_of(const int* pstart, int experts, int q) {
  int lo = 0, hi = experts;  // first e in [0, experts] with pstart[e] > q, minus one
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (pstart[mid] <= q)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo - 1;
}

__device__ __forceinline__ void write_pair(const Params& p, int row, int flat) {
  p.sorted_ids[row] = pack_id(flat % p.topk, flat / p.topk);
  if (p.sorted_weights != nullptr) p.sorted_weights[row] = p.topk_weights != nullptr ? p.topk_weights[flat] : 0.0f;
}

__device__ __forceinline__ void write_pad(const Params& p, int row) {
  p.sorted_ids[row] = pack_id(p.topk, p.tokens);
  if (p.sorted_weights != nullptr) p.sorted_weights[row] = 0.0f;
}

// Block-wide scan over the experts. In: cnt[e] = e's pairs. Out: pstart[e] = its first row (exclusive
// sum of the counts rounded up to block_m), lid[e] = local experts below it. Returns the rows used
// (every thread). Ends with a barrier.
template <int kBlock>
__device__ int scan_experts(const Params& p, const int* cnt, int* pstart, int* lid,
                            typename gpu::prim::BlockExclusiveSum<unsigned long long, kBlock>::TempStorage& temp) {
  using Scan = gpu::prim::BlockExclusiveSum<unsigned long long, kBlock>;
  unsigned long long carry = 0;  // (rows << 32) | local experts, over the chunks done
  for (int base = 0; base < p.experts; base += kBlock) {
    const int e = base + static_cast<int>(threadIdx.x);
    int c = 0;
    unsigned long long local = 0;
    if (e < p.experts) {
      c = cnt[e];
      local = (p.expert_mask == nullptr || p.expert_mask[e] != 0) ? 1u : 0u;
    }
    const unsigned long long rows = static_cast<unsigned long long>((c + p.block_m - 1) / p.block_m) *
                                    static_cast<unsigned long long>(p.block_m);
    unsigned long long below = 0, total = 0;
    Scan::run((rows << 32) | local, below, total, temp);
    below += carry;
    if (e < p.experts) {
      pstart[e] = static_cast<int>(below >> 32);
      lid[e] = static_cast<int>(below & 0xffffffffu);
    }
    carry += total;
    __syncthreads();  // the scan's storage is reused by the next chunk; the arrays are read next
  }
  return static_cast<int>(carry >> 32);
}

// This wave's share of the pairs, [lo, hi): lane l takes pair lo + s*kWaveSize + l in step s. Out:
// key[s] (the sentinel `experts` for a pair dropped or past hi) and rank[s] = pairs of the same expert
// earlier in the share. `cnt` is this wave's row of per-expert counters (zero on entry; the share's
// counts on return).
template <int kSteps>
__device__ __forceinline__ void rank_share(const Params& p, int lo, int hi, int* cnt, unsigned (&key)[kSteps],
                                           int (&rank)[kSteps]) {
  const int lane = gpu::lane_id();
  const unsigned none = static_cast<unsigned>(p.experts);
#pragma unroll
  for (int s = 0; s < kSteps; ++s) {  // every load first: one round trip for the share
    const int i = lo + s * gpu::kWaveSize + lane;
    key[s] = i < hi ? key_of(p, i) : none;
    rank[s] = 0;
  }
  const gpu::LaneMask below = gpu::lanes_below();
#pragma unroll
  for (int s = 0; s < kSteps; ++s) {
    if (lo + s * gpu::kWaveSize >= hi) break;  // the same for every lane of the wave
    const unsigned k = key[s];
    const gpu::LaneMask peers = gpu::match_any(k);
    const int base = k < none ? cnt[k] : 0;
    rank[s] = base + gpu::lane_count(peers & below);
    gpu::wave_sync();
    if (k < none && (peers & below) == 0) cnt[k] = base + gpu::lane_count(peers);
    gpu::wave_sync();
  }
}

// Per expert, over the waves of the block: cnt[w][e] := pairs of e in the shares of waves below w;
// returns nothing, writes the block's count of e to total[e]. Ends with a barrier.
__device__ __forceinline__ void prefix_over_waves(int experts, int* cnt, int* total) {
  for (int e = static_cast<int>(threadIdx.x); e < experts; e += kThreads) {
    int run = 0;
#pragma unroll
    for (int w = 0; w < kWaves; ++w) {
      const int c = cnt[w * experts + e];
      cnt[w * experts + e] = run;
      run += c;
    }
    total[e] = run;
  }
  __syncthreads();
}

// A block past the sorting ones: its part of zero_out (blocks z of zb, threads strided).
__device__ __forceinline__ void zero_part(const Params& p, int z, int zb) {
  const size_t step = static_cast<size_t>(zb) * kThreads;
  for (size_t w = static_cast<size_t>(z) * kThreads + threadIdx.x; w < p.zero_words; w += step)
    p.zero[w] = make_uint4(0u, 0u, 0u, 0u);
}

// Rows [0, row_end) that are not pairs: pad value (rows < num_valid: an expert's rows past its pairs;
// rows >= num_valid are unused). Blocks [0, block_end): sorted_expert_ids. Strided by (start, step),
// warps 32 apart. The used rows are visited row by row, each finding its expert by a binary search,
// when they are few against the experts (a few tokens); else expert by expert, a warp an expert, which
// reads each expert's bounds once (block_m 64 at 128 tokens: 38 -> 13.5 us on an H200).
__device__ __forceinline__ void fill_rows_and_blocks(const Params& p, const int* pstart, const int* cnt, const int* lid,
                                                     int num_valid, int row_end, int block_end, int start, int step) {
  if (num_valid < 12 * p.experts) {
    for (int q = start; q < num_valid; q += step) {
      const int e = owner_of(pstart, p.experts, q);
      if (q - pstart[e] >= cnt[e]) write_pad(p, q);  // else a pair, written by the scatter
    }
  } else {
    const int lane = start & 31;
    for (int e = start >> 5; e < p.experts; e += step >> 5)
      for (int q = pstart[e] + cnt[e] + lane; q < pstart[e + 1]; q += 32) write_pad(p, q);
  }
  for (int q = num_valid + start; q < row_end; q += step) write_pad(p, q);
  const int used_blocks = num_valid / p.block_m;
  for (int b = start; b < block_end; b += step)
    p.sorted_expert_ids[b] = b < used_blocks ? lid[owner_of(pstart, p.experts, b * p.block_m)] : -1;
}

// ---- SingleBlock -------------------------------------------------------------------------------

// Every pair counted per expert into total (shared-memory atomics: counts do not depend on the order),
// and those before pair `upto` into before as well.
__device__ __forceinline__ void count_experts(const Params& p, int* total, int* before, int upto) {
  for (int i = static_cast<int>(threadIdx.x); i < p.n; i += kThreads) {
    const unsigned k = key_of(p, i);
    if (k >= static_cast<unsigned>(p.experts)) continue;
    atomicAdd(&total[k], 1);
    if (i < upto) atomicAdd(&before[k], 1);
  }
}

// Dynamic shared memory: cnt [kWaves][E], total [E], pstart [E + 1], lid [E], before [E] (ints).
template <int kSteps>
__global__ void __launch_bounds__(kThreads) sort_single_block_kernel(Params p) {
  gpu::follow_previous_grid();
  const int b = static_cast<int>(blockIdx.x);
  if (b >= p.sort_blocks) {
    zero_part(p, b - p.sort_blocks, static_cast<int>(gridDim.x) - p.sort_blocks);
    return;
  }
  using Scan = gpu::prim::BlockExclusiveSum<unsigned long long, kThreads>;
  __shared__ typename Scan::TempStorage scan;
  extern __shared__ int sm[];
  const int E = p.experts;
  int* cnt = sm;
  int* total = cnt + kWaves * E;
  int* pstart = total + E;
  int* lid = pstart + E + 1;
  int* before = lid + E;

  const int tid = static_cast<int>(threadIdx.x), wave = tid / gpu::kWaveSize;
  if (b >= p.rank_blocks) {  // a fill block: the counts, the scan, its share of the pad rows and blocks
    for (int e = tid; e < E; e += kThreads) total[e] = 0;
    __syncthreads();
    count_experts(p, total, nullptr, 0);
    __syncthreads();
    const int num_valid = scan_experts<kThreads>(p, total, pstart, lid, scan);
    if (tid == 0) pstart[E] = num_valid;
    __syncthreads();
    fill_rows_and_blocks(p, pstart, total, lid, num_valid, p.fill ? p.capacity : num_valid,
                         p.fill ? p.max_blocks : num_valid / p.block_m, (b - p.rank_blocks) * kThreads + tid,
                         p.fill_blocks * kThreads);
    return;
  }
  // Ranking block b: the pairs [b, b + 1) * kRankChunk, all of them when one block ranks. Every pair's row
  // needs the counts of all pairs (the experts' starts) and of the pairs before the chunk; with several
  // ranking blocks each counts them itself (shared-memory atomics; counts do not depend on the order).
  const bool counted = p.rank_blocks > 1;
  for (int i = tid; i < kWaves * E; i += kThreads) cnt[i] = 0;
  for (int e = tid; e < E; e += kThreads) before[e] = 0;
  if (counted)
    for (int e = tid; e < E; e += kThreads) total[e] = 0;
  __syncthreads();
  const int c0 = b * kRankChunk, c1 = min(p.n, c0 + kRankChunk);
  if (counted) count_experts(p, total, before, c0);
  // Shares of whole steps, in wave order (a few pairs: all in wave 0).
  const int share = ((c1 - c0 + kWaves - 1) / kWaves + gpu::kWaveSize - 1) / gpu::kWaveSize * gpu::kWaveSize;
  const int lo = c0 + wave * share, hi = min(c1, lo + share);
  unsigned key[kSteps];
  int rank[kSteps];
  rank_share<kSteps>(p, lo, hi, cnt + wave * E, key, rank);
  __syncthreads();
  // The waves' prefix per expert; its totals are the experts' counts when this block ranks every pair,
  // else only the chunk's (then pstart takes them: the scan overwrites it).
  prefix_over_waves(E, cnt, counted ? pstart : total);
  const int num_valid = scan_experts<kThreads>(p, total, pstart, lid, scan);
  if (b == 0 && tid == 0) {
    p.num_valid_ids[0] = num_valid;
    p.num_valid_ids[1] = p.tokens;
  }
  const int lane = gpu::lane_id();
#pragma unroll
  for (int s = 0; s < kSteps; ++s) {
    const unsigned k = key[s];
    if (k >= static_cast<unsigned>(E)) continue;
    write_pair(p, pstart[k] + before[k] + cnt[wave * E + k] + rank[s], lo + s * gpu::kWaveSize + lane);
  }
}

size_t single_block_smem(int experts) { return (static_cast<size_t>(kWaves + 4) * experts + 1) * sizeof(int); }

// The cells past the used rows / blocks, after a SingleBlock launch that left them (num_valid_ids is
// on the device by then: same stream).
__global__ void __launch_bounds__(kThreads) fill_tail_kernel(Params p) {
  gpu::follow_previous_grid();
  const int num_valid = p.num_valid_ids[0];
  const int step = static_cast<int>(gridDim.x) * kThreads;
  const int start = static_cast<int>(blockIdx.x) * kThreads + static_cast<int>(threadIdx.x);
  for (int q = num_valid + start; q < p.capacity; q += step) write_pad(p, q);
  for (int b = num_valid / p.block_m + start; b < p.max_blocks; b += step) p.sorted_expert_ids[b] = -1;
}

// ---- MultiBlock --------------------------------------------------------------------------------

int chunks_for(int n) { return (n + kChunk - 1) / kChunk; }

struct Workspace {
  int* rank;    // [n] rank of each pair among its expert's pairs in its chunk
  int* counts;  // [chunks][E] pairs of e in chunk c; after scan_kernel: those in chunks below c
  int *cnt, *pstart, *lid;  // [E], [E+1], [E]
  size_t total;  // bytes of the whole layout (including the base alignment slack)
};

// The layout inside the workspace; with base == nullptr only the sizes (pointers are offsets).
Workspace layout(void* base, int n, int experts) {
  Workspace w{};
  char* b = static_cast<char*>(base);
  size_t off = 0;
  if (b != nullptr) off = align_up(reinterpret_cast<uintptr_t>(b)) - reinterpret_cast<uintptr_t>(b);
  auto take = [&](size_t count) {
    int* at = b != nullptr ? reinterpret_cast<int*>(b + off) : nullptr;
    off = align_up(off + count * sizeof(int));
    return at;
  };
  const size_t e = static_cast<size_t>(experts);
  w.rank = take(static_cast<size_t>(n));
  w.counts = take(static_cast<size_t>(chunks_for(n)) * e);
  w.cnt = take(e);
  w.pstart = take(e + 1);
  w.lid = take(e);
  w.total = off + kAlign;  // slack for a base that is not 256-aligned
  return w;
}

// Dynamic shared memory: cnt [kWaves][E] ints.
__global__ void __launch_bounds__(kThreads) rank_kernel(Params p, int* rank_out, int* counts) {
  gpu::follow_previous_grid();
  extern __shared__ int cnt[];
  const int E = p.experts;
  const int tid = static_cast<int>(threadIdx.x), wave = tid / gpu::kWaveSize;
  for (int i = tid; i < kWaves * E; i += kThreads) cnt[i] = 0;
  __syncthreads();
  const int c0 = static_cast<int>(blockIdx.x) * kChunk;
  const int lo = c0 + wave * (kChunk / kWaves), hi = min(p.n, lo + kChunk / kWaves);
  unsigned key[kChunkSteps];
  int rank[kChunkSteps];
  rank_share<kChunkSteps>(p, lo, hi, cnt + wave * E, key, rank);
  __syncthreads();
  prefix_over_waves(E, cnt, counts + static_cast<size_t>(blockIdx.x) * E);
  const int lane = gpu::lane_id();
#pragma unroll
  for (int s = 0; s < kChunkSteps; ++s) {
    const unsigned k = key[s];
    if (k < static_cast<unsigned>(E)) rank_out[lo + s * gpu::kWaveSize + lane] = cnt[wave * E + k] + rank[s];
  }
}

__global__ void __launch_bounds__(kScanThreads) scan_kernel(Params p, int* counts, int chunks, int* cnt, int* pstart,
                                                           int* lid) {
  gpu::follow_previous_grid();
  __shared__ typename gpu::prim::BlockExclusiveSum<unsigned long long, kScanThreads>::TempStorage temp;
  for (int e = static_cast<int>(threadIdx.x); e < p.experts; e += kScanThreads) {
    int run = 0;
    for (int c = 0; c < chunks; ++c) {
      int* at = counts + static_cast<size_t>(c) * p.experts + e;
      const int v = *at;
      *at = run;
      run += v;
    }
    cnt[e] = run;
  }
  __syncthreads();
  const int num_valid = scan_experts<kScanThreads>(p, cnt, pstart, lid, temp);
  if (threadIdx.x == 0) {
    pstart[p.experts] = num_valid;
    p.num_valid_ids[0] = num_valid;
    p.num_valid_ids[1] = p.tokens;
  }
}

// Dynamic shared memory: pstart, experts + 1 ints (the binary searches run there).
__global__ void __launch_bounds__(kThreads) scatter_kernel(Params p, const int* rank, const int* counts,
                                                            const int* cnt, const int* pstart, const int* lid) {
  gpu::follow_previous_grid();
  if (static_cast<int>(blockIdx.x) >= p.sort_blocks) {
    zero_part(p, static_cast<int>(blockIdx.x) - p.sort_blocks, static_cast<int>(gridDim.x) - p.sort_blocks);
    return;
  }
  extern __shared__ int pstart_s[];
  for (int e = static_cast<int>(threadIdx.x); e <= p.experts; e += kThreads) pstart_s[e] = pstart[e];
  __syncthreads();
  const int num_valid = pstart_s[p.experts];
  const int start = static_cast<int>(blockIdx.x) * kThreads + static_cast<int>(threadIdx.x);
  const int step = p.sort_blocks * kThreads;
  for (int i = start; i < p.n; i += step) {
    const unsigned k = key_of(p, i);
    if (k >= static_cast<unsigned>(p.experts)) continue;
    write_pair(p, pstart_s[k] + counts[static_cast<size_t>(i / kChunk) * p.experts + k] + rank[i], i);
  }
  fill_rows_and_blocks(p, pstart_s, cnt, lid, num_valid, p.fill ? p.capacity : num_valid,
                       p.fill ? p.max_blocks : num_valid / p.block_m, start, step);
}

int grid_for(size_t work) {
  const size_t b = (work + kThreads - 1) / kThreads;
  return static_cast<int>(b == 0 ? 1 : (b < kGridMaxBlocks ? b : kGridMaxBlocks));
}

// Blocks that zero `words` 16-byte words (0 for none).
int zero_blocks_for(size_t words) {
  if (words == 0) return 0;
  const size_t per_block = static_cast<size_t>(kThreads) * kZeroStoresPerThread;
  const size_t b = (words + per_block - 1) / per_block;
  return static_cast<int>(b < kGridMaxBlocks ? b : kGridMaxBlocks);
}

SortPath resolve(SortPath path, int tokens, int topk, int experts) {
  return path == SortPath::Auto ? sort_path(tokens, topk, experts) : path;
}

template <int kSteps>
gpu::ErrorCode launch_single_block(const Params& p, int zero_blocks, const gpu::LaunchOpts& opts, gpu::Stream stream) {
  static std::atomic<int> allowed{0};
  const size_t smem = single_block_smem(p.experts);
  if (auto e = gpu::allow_dynamic_shared_memory(sort_single_block_kernel<kSteps>, static_cast<int>(smem), allowed,
                                                kStaticSmemMargin);
      e != gpu::kSuccess)
    return e;
  return gpu::launch(sort_single_block_kernel<kSteps>, dim3(p.sort_blocks + zero_blocks), dim3(kThreads), smem, stream,
                     opts, p);
}

}  // namespace

size_t sort_capacity(int tokens, int topk, int experts, int block_m) {
  if (tokens <= 0 || topk <= 0 || experts <= 0 || block_m <= 0) return 0;
  return static_cast<size_t>(tokens) * static_cast<size_t>(topk) + static_cast<size_t>(experts) * static_cast<size_t>(block_m) -
         static_cast<size_t>(topk);
}

size_t sort_max_blocks(int tokens, int topk, int experts, int block_m) {
  const size_t c = sort_capacity(tokens, topk, experts, block_m);
  return c == 0 ? 0 : (c + static_cast<size_t>(block_m) - 1) / static_cast<size_t>(block_m);
}

SortPath sort_path(int tokens, int topk, int experts) {
  const long long n = static_cast<long long>(tokens) * topk;
  return n <= kSortAutoSingleBlockPairs && experts <= kSortSingleBlockMaxExperts ? SortPath::SingleBlock
                                                                                : SortPath::MultiBlock;
}

const char* sort_why_not(int tokens, int topk, int experts, int block_m, SortPath path) {
  if (tokens <= 0 || topk <= 0 || experts <= 0 || block_m <= 0) return "tokens, topk, experts and block_m must be positive";
  if (tokens >= (1 << 24)) return "tokens must be below 2^24 (the (slot << 24) | token packing)";
  if (topk >= 256) return "topk must be below 256 (the (slot << 24) | token packing)";
  if (experts > kSortMaxExperts) return "more than 2048 experts";
  if (sort_capacity(tokens, topk, experts, block_m) >= static_cast<size_t>(INT_MAX))
    return "tokens*topk + experts*block_m must stay below 2^31";
  if (path == SortPath::SingleBlock &&
      (static_cast<long long>(tokens) * topk > kSortSingleBlockMaxPairs || experts > kSortSingleBlockMaxExperts))
    return "the single-block path takes at most 8192 pairs and 1024 experts";
  return nullptr;
}

size_t sort_workspace_bytes(int tokens, int topk, int experts, int block_m, SortPath path) {
  if (sort_why_not(tokens, topk, experts, block_m, path) != nullptr) return 0;
  if (resolve(path, tokens, topk, experts) == SortPath::SingleBlock) return 0;
  return layout(nullptr, tokens * topk, experts).total;
}

gpu::ErrorCode sort(const SortArgs& a, gpu::Stream stream) {
  if (sort_why_not(a.tokens, a.topk, a.experts, a.block_m, a.path) != nullptr) return gpu::kErrorInvalidValue;
  if (a.topk_ids == nullptr || a.sorted_ids == nullptr || a.sorted_expert_ids == nullptr || a.num_valid_ids == nullptr)
    return gpu::kErrorInvalidValue;
  if (a.zero_out != nullptr && (reinterpret_cast<uintptr_t>(a.zero_out) % 16 != 0 || a.zero_bytes % 16 != 0))
    return gpu::kErrorInvalidValue;
  Params p{};
  p.topk_ids = a.topk_ids;
  p.topk_weights = a.topk_weights;
  p.expert_mask = a.expert_mask;
  p.sorted_ids = a.sorted_ids;
  p.sorted_weights = a.sorted_weights;
  p.sorted_expert_ids = a.sorted_expert_ids;
  p.num_valid_ids = a.num_valid_ids;
  p.tokens = a.tokens;
  p.topk = a.topk;
  p.experts = a.experts;
  p.block_m = a.block_m;
  p.n = a.tokens * a.topk;
  p.capacity = static_cast<int>(sort_capacity(a.tokens, a.topk, a.experts, a.block_m));
  p.max_blocks = static_cast<int>(sort_max_blocks(a.tokens, a.topk, a.experts, a.block_m));
  p.zero = static_cast<uint4*>(a.zero_out);
  p.zero_words = a.zero_out != nullptr ? a.zero_bytes / 16 : 0;
  const int zero_blocks = zero_blocks_for(p.zero_words);
  const gpu::LaunchOpts opts{dim3(1, 1, 1), a.overlap_previous};

  if (resolve(a.path, a.tokens, a.topk, a.experts) == SortPath::SingleBlock) {
    const bool tail_kernel = a.fill_unused && p.capacity > kFillInBlockMax;
    p.fill = a.fill_unused && !tail_kernel;
    // One fill block a 64 experts (a warp then walks 8 of them), 1..16.
    p.fill_blocks = std::clamp(p.experts / 64, 1, 16);
    // Up to kRankChunk pairs one ranking block; past that one a chunk, each counting every pair again.
    p.rank_blocks = p.n <= kRankChunk ? 1 : (p.n + kRankChunk - 1) / kRankChunk;
    p.sort_blocks = p.rank_blocks + p.fill_blocks;
    const int ranked = std::min(p.n, kRankChunk);  // pairs a ranking block takes
    const int steps = ((ranked + kWaves - 1) / kWaves + gpu::kWaveSize - 1) / gpu::kWaveSize;
    static_assert(kRankChunk / kThreads <= 4, "a ranking block's share is at most 4 steps a wave");
    const gpu::ErrorCode e = steps <= 1 ? launch_single_block<1>(p, zero_blocks, opts, stream)
                                        : launch_single_block<4>(p, zero_blocks, opts, stream);
    if (e != gpu::kSuccess || !tail_kernel) return e;
    return gpu::launch(fill_tail_kernel, dim3(grid_for(static_cast<size_t>(p.capacity))), dim3(kThreads), 0, stream, opts, p);
  }

  Workspace w = layout(a.workspace, p.n, p.experts);
  if (a.workspace == nullptr || a.workspace_bytes < w.total) return gpu::kErrorInvalidValue;
  p.fill = a.fill_unused;
  const int chunks = chunks_for(p.n);

  static std::atomic<int> rank_allowed{0};
  const size_t rank_smem = static_cast<size_t>(kWaves) * p.experts * sizeof(int);
  if (auto e = gpu::allow_dynamic_shared_memory(rank_kernel, static_cast<int>(rank_smem), rank_allowed, kStaticSmemMargin);
      e != gpu::kSuccess)
    return e;
  if (auto e = gpu::launch(rank_kernel, dim3(chunks), dim3(kThreads), rank_smem, stream, opts, p, w.rank, w.counts);
      e != gpu::kSuccess)
    return e;
  if (auto e = gpu::launch(scan_kernel, dim3(1), dim3(kScanThreads), 0, stream, opts, p, w.counts, chunks, w.cnt,
                           w.pstart, w.lid);
      e != gpu::kSuccess)
    return e;
  const size_t smem = static_cast<size_t>(p.experts + 1) * sizeof(int);
  const size_t work = static_cast<size_t>(p.fill && p.capacity > p.n ? p.capacity : p.n);
  p.sort_blocks = grid_for(work);
  return gpu::launch(scatter_kernel, dim3(p.sort_blocks + zero_blocks), dim3(kThreads), smem, stream, opts, p,
                     static_cast<const int*>(w.rank), static_cast<const int*>(w.counts), static_cast<const int*>(w.cnt),
                     static_cast<const int*>(w.pstart), static_cast<const int*>(w.lid));
}

}  // namespace cktune::kernels::moe_2stages
