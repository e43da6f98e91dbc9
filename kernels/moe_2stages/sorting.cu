// AITER's moe_sorting on the GPU (sorting.hpp says what is written). Two paths:
//
// SingleBlock (tokens*topk <= 8192, experts <= 1024), one launch of one thread block:
//   1. each thread loads kItems consecutive pairs (blocked): key = expert (experts, a sentinel, for a
//      masked or out-of-range expert and for the slots past tokens*topk), value = flat index t*topk+j;
//   2. block radix sort on the key bits (stable: (token, slot) order within an expert);
//   3. run boundaries of the sorted keys give each expert's first sorted position and its count;
//   4. a block scan over experts gives each expert's padded start row and its local (masked) id;
//   5. scatter: each sorted pair to pstart[e] + (its sorted position - first position of e); pad rows
//      and sorted_expert_ids by a binary search of the row's block in the padded starts.
//   The cells past the used rows are filled in the same kernel while there are at most 32768 of
//   them, by a second grid-wide kernel beyond that.
//
// DeviceRadix (any size up to capacity < 2^31, experts <= 4096): the same steps as separate kernels:
//   keys (and zeroed per-expert run bounds) -> device radix sort of (key, flat index) -> run
//   boundaries -> one-block scan over experts (writes num_valid_ids) -> one scatter/fill kernel.
#include "sorting.hpp"

#include <climits>

#include "../common/prim.hpp"

namespace cktune::kernels::moe_2stages {
namespace {

constexpr int kFillInBlockMax = 32768;  // SingleBlock: cells past the used rows written in-kernel up to this
constexpr int kGridThreads = 256;
constexpr int kGridMaxBlocks = 1024;
constexpr int kScanThreads = 1024;      // DeviceRadix: the one-block scan over experts
constexpr size_t kAlign = 256;

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
  int key_bits;    // bits that hold 0 .. experts (the sentinel)
  int capacity;    // entries of sorted_ids / sorted_weights
  int max_blocks;  // entries of sorted_expert_ids
  bool fill;       // this kernel writes the cells past the used rows / blocks
};

__device__ __forceinline__ int32_t pack_id(int slot, int token) {
  return static_cast<int32_t>((static_cast<uint32_t>(slot) << 24) | static_cast<uint32_t>(token));
}

// The sort key of flat pair i: its expert when local, else `experts` (sorts after every local expert).
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

// Block-wide scan over the experts. In: ustart[e] / cnt[e] = first / one-past-last sorted position of
// e's pairs (both 0 for an expert without pairs). Out: cnt[e] = e's pairs, pstart[e] = its first row
// (exclusive sum of the counts rounded up to block_m), lid[e] = local experts below e. Returns the
// rows used (every thread). Ends with a barrier.
template <int kThreads>
__device__ int scan_experts(const Params& p, const int* ustart, int* cnt, int* pstart, int* lid,
                            typename gpu::prim::BlockExclusiveSum<unsigned long long, kThreads>::TempStorage& temp) {
  using Scan = gpu::prim::BlockExclusiveSum<unsigned long long, kThreads>;
  unsigned long long carry = 0;  // (rows << 32) | local experts, over the chunks done
  for (int base = 0; base < p.experts; base += kThreads) {
    const int e = base + static_cast<int>(threadIdx.x);
    int c = 0;
    unsigned long long local = 0;
    if (e < p.experts) {
      c = cnt[e] - ustart[e];
      local = (p.expert_mask == nullptr || p.expert_mask[e] != 0) ? 1u : 0u;
    }
    const unsigned long long rows = static_cast<unsigned long long>((c + p.block_m - 1) / p.block_m) *
                                    static_cast<unsigned long long>(p.block_m);
    unsigned long long below = 0, total = 0;
    Scan::run((rows << 32) | local, below, total, temp);
    below += carry;
    if (e < p.experts) {
      cnt[e] = c;
      pstart[e] = static_cast<int>(below >> 32);
      lid[e] = static_cast<int>(below & 0xffffffffu);
    }
    carry += total;
    __syncthreads();  // the scan's storage is reused by the next chunk; the arrays are read next
  }
  return static_cast<int>(carry >> 32);
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

template <int kThreads, int kItems>
__global__ void __launch_bounds__(kThreads) sort_single_block_kernel(Params p) {
  using Sorter = gpu::prim::BlockRadixSortPairs<unsigned, int, kThreads, kItems>;
  using Scan = gpu::prim::BlockExclusiveSum<unsigned long long, kThreads>;
  constexpr int kE = kSortSingleBlockMaxExperts;
  struct Experts {
    unsigned first_key[kThreads], last_key[kThreads];  // each thread's first and last sorted key
    int ustart[kE], cnt[kE], lid[kE], pstart[kE + 1];
  };
  __shared__ union Shared {
    typename Sorter::TempStorage sort;
    Experts ex;
  } sm;
  __shared__ typename Scan::TempStorage scan;

  const int tid = static_cast<int>(threadIdx.x);
  unsigned keys[kItems];
  int vals[kItems];
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const int i = tid * kItems + j;
    keys[j] = i < p.n ? key_of(p, i) : static_cast<unsigned>(p.experts);
    vals[j] = i;
  }
  Sorter::sort(keys, vals, sm.sort, 0, p.key_bits);
  __syncthreads();  // the sort's storage becomes the expert arrays

  Experts& ex = sm.ex;
  for (int e = tid; e < p.experts; e += kThreads) ex.ustart[e] = ex.cnt[e] = 0;
  ex.first_key[tid] = keys[0];
  ex.last_key[tid] = keys[kItems - 1];
  __syncthreads();
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const unsigned k = keys[j];
    if (k >= static_cast<unsigned>(p.experts)) continue;
    const unsigned prev = j > 0 ? keys[j - 1] : (tid > 0 ? ex.last_key[tid - 1] : UINT_MAX);
    const unsigned next = j + 1 < kItems ? keys[j + 1] : (tid + 1 < kThreads ? ex.first_key[tid + 1] : UINT_MAX);
    if (prev != k) ex.ustart[k] = tid * kItems + j;
    if (next != k) ex.cnt[k] = tid * kItems + j + 1;
  }
  __syncthreads();
  const int num_valid = scan_experts<kThreads>(p, ex.ustart, ex.cnt, ex.pstart, ex.lid, scan);
  if (tid == 0) {
    ex.pstart[p.experts] = num_valid;
    p.num_valid_ids[0] = num_valid;
    p.num_valid_ids[1] = p.tokens;
  }
  __syncthreads();

#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const unsigned k = keys[j];
    if (k >= static_cast<unsigned>(p.experts)) continue;
    write_pair(p, ex.pstart[k] + (tid * kItems + j - ex.ustart[k]), vals[j]);
  }
  fill_rows_and_blocks(p, ex.pstart, ex.cnt, ex.lid, num_valid, p.fill ? p.capacity : num_valid,
                       p.fill ? p.max_blocks : num_valid / p.block_m, tid, kThreads);
}

// The cells past the used rows / blocks, after a SingleBlock launch that left them (num_valid_ids is
// on the device by then: same stream).
__global__ void __launch_bounds__(kGridThreads) fill_tail_kernel(Params p) {
  const int num_valid = p.num_valid_ids[0];
  const int step = static_cast<int>(gridDim.x) * kGridThreads;
  const int start = static_cast<int>(blockIdx.x) * kGridThreads + static_cast<int>(threadIdx.x);
  for (int q = num_valid + start; q < p.capacity; q += step) write_pad(p, q);
  for (int b = num_valid / p.block_m + start; b < p.max_blocks; b += step) p.sorted_expert_ids[b] = -1;
}

// ---- DeviceRadix -------------------------------------------------------------------------------

struct Workspace {
  unsigned *keys, *keys_alt;
  int *vals, *vals_alt;
  int *ustart, *cnt, *pstart, *lid;  // [E], [E], [E+1], [E]
  void* temp;
  size_t temp_bytes;
  size_t total;  // bytes of the whole layout (including the base alignment slack)
};

// The layout inside the workspace; with base == nullptr only the sizes (pointers are offsets).
Workspace layout(void* base, int n, int experts, size_t temp_bytes) {
  Workspace w{};
  char* b = static_cast<char*>(base);
  size_t off = 0;
  if (b != nullptr) off = align_up(reinterpret_cast<uintptr_t>(b)) - reinterpret_cast<uintptr_t>(b);
  auto take = [&](size_t bytes) {
    char* at = b != nullptr ? b + off : nullptr;
    off = align_up(off + bytes);
    return at;
  };
  const size_t nn = static_cast<size_t>(n), e = static_cast<size_t>(experts);
  w.keys = reinterpret_cast<unsigned*>(take(nn * sizeof(unsigned)));
  w.keys_alt = reinterpret_cast<unsigned*>(take(nn * sizeof(unsigned)));
  w.vals = reinterpret_cast<int*>(take(nn * sizeof(int)));
  w.vals_alt = reinterpret_cast<int*>(take(nn * sizeof(int)));
  w.ustart = reinterpret_cast<int*>(take(e * sizeof(int)));
  w.cnt = reinterpret_cast<int*>(take(e * sizeof(int)));
  w.pstart = reinterpret_cast<int*>(take((e + 1) * sizeof(int)));
  w.lid = reinterpret_cast<int*>(take(e * sizeof(int)));
  w.temp = take(temp_bytes);
  w.temp_bytes = temp_bytes;
  w.total = off + kAlign;  // slack for a base that is not 256-aligned
  return w;
}

__device__ __forceinline__ int grid_start() {
  return static_cast<int>(blockIdx.x) * static_cast<int>(blockDim.x) + static_cast<int>(threadIdx.x);
}
__device__ __forceinline__ int grid_step() { return static_cast<int>(gridDim.x) * static_cast<int>(blockDim.x); }

__global__ void __launch_bounds__(kGridThreads) keys_kernel(Params p, unsigned* keys, int* vals, int* ustart, int* cnt) {
  for (int i = grid_start(); i < p.n; i += grid_step()) {
    keys[i] = key_of(p, i);
    vals[i] = i;
  }
  for (int e = grid_start(); e < p.experts; e += grid_step()) ustart[e] = cnt[e] = 0;
}

__global__ void __launch_bounds__(kGridThreads) bounds_kernel(Params p, const unsigned* keys, int* ustart, int* cnt) {
  for (int i = grid_start(); i < p.n; i += grid_step()) {
    const unsigned k = keys[i];
    if (k >= static_cast<unsigned>(p.experts)) continue;
    if (i == 0 || keys[i - 1] != k) ustart[k] = i;
    if (i + 1 == p.n || keys[i + 1] != k) cnt[k] = i + 1;
  }
}

__global__ void __launch_bounds__(kScanThreads) scan_kernel(Params p, const int* ustart, int* cnt, int* pstart, int* lid) {
  __shared__ typename gpu::prim::BlockExclusiveSum<unsigned long long, kScanThreads>::TempStorage temp;
  const int num_valid = scan_experts<kScanThreads>(p, ustart, cnt, pstart, lid, temp);
  if (threadIdx.x == 0) {
    pstart[p.experts] = num_valid;
    p.num_valid_ids[0] = num_valid;
    p.num_valid_ids[1] = p.tokens;
  }
}

// Dynamic shared memory: pstart, experts + 1 ints (the binary searches run there).
__global__ void __launch_bounds__(kGridThreads) scatter_kernel(Params p, const unsigned* keys, const int* vals,
                                                                const int* ustart, const int* cnt, const int* pstart,
                                                                const int* lid) {
  extern __shared__ int pstart_s[];
  for (int e = static_cast<int>(threadIdx.x); e <= p.experts; e += kGridThreads) pstart_s[e] = pstart[e];
  __syncthreads();
  const int num_valid = pstart_s[p.experts];
  for (int i = grid_start(); i < p.n; i += grid_step()) {
    const unsigned k = keys[i];
    if (k >= static_cast<unsigned>(p.experts)) continue;
    write_pair(p, pstart_s[k] + (i - ustart[k]), vals[i]);
  }
  fill_rows_and_blocks(p, pstart_s, cnt, lid, num_valid, p.fill ? p.capacity : num_valid,
                       p.fill ? p.max_blocks : num_valid / p.block_m, grid_start(), grid_step());
}

int key_bits_for(int experts) {
  int bits = 0;
  while ((1LL << bits) <= experts) ++bits;  // holds 0 .. experts
  return bits;
}

int grid_for(size_t work) {
  const size_t b = (work + kGridThreads - 1) / kGridThreads;
  return static_cast<int>(b == 0 ? 1 : (b < kGridMaxBlocks ? b : kGridMaxBlocks));
}

// The library's scratch for n pairs on the key bits of `experts` (the last answer is remembered per
// thread: the query costs host time on every call otherwise).
gpu::ErrorCode radix_temp_bytes(int n, int experts, size_t& bytes) {
  struct Last {
    int device = -1, n = -1, bits = -1;
    size_t bytes = 0;
  };
  static thread_local Last last;
  const int bits = key_bits_for(experts);
  int device = 0;
  if (auto e = gpu::rt::get_device(&device); e != gpu::kSuccess) return e;
  if (last.device == device && last.n == n && last.bits == bits) {
    bytes = last.bytes;
    return gpu::kSuccess;
  }
  unsigned *k = nullptr, *ka = nullptr;
  int *v = nullptr, *va = nullptr;
  bytes = 0;
  const gpu::ErrorCode e =
      gpu::prim::device_radix_sort_pairs<unsigned, int>(nullptr, bytes, k, ka, v, va, n, 0, bits, gpu::Stream{});
  if (e == gpu::kSuccess) last = Last{device, n, bits, bytes};
  return e;
}

SortPath resolve(SortPath path, int tokens, int topk, int experts) {
  return path == SortPath::Auto ? sort_path(tokens, topk, experts) : path;
}

template <int kThreads, int kItems>
gpu::ErrorCode launch_single_block(const Params& p, gpu::Stream stream) {
  sort_single_block_kernel<kThreads, kItems><<<1, kThreads, 0, stream>>>(p);
  return gpu::get_last_error();
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
  return n <= kSortSingleBlockMaxPairs && experts <= kSortSingleBlockMaxExperts ? SortPath::SingleBlock
                                                                                : SortPath::DeviceRadix;
}

const char* sort_why_not(int tokens, int topk, int experts, int block_m, SortPath path) {
  if (tokens <= 0 || topk <= 0 || experts <= 0 || block_m <= 0) return "tokens, topk, experts and block_m must be positive";
  if (tokens >= (1 << 24)) return "tokens must be below 2^24 (the (slot << 24) | token packing)";
  if (topk >= 256) return "topk must be below 256 (the (slot << 24) | token packing)";
  if (experts > kSortMaxExperts) return "more than 4096 experts";
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
  const int n = tokens * topk;
  size_t temp = 0;
  if (radix_temp_bytes(n, experts, temp) != gpu::kSuccess) {
    (void)gpu::get_last_error();
    return SIZE_MAX;
  }
  return layout(nullptr, n, experts, temp).total;
}

gpu::ErrorCode sort(const SortArgs& a, gpu::Stream stream) {
  if (sort_why_not(a.tokens, a.topk, a.experts, a.block_m, a.path) != nullptr) return gpu::kErrorInvalidValue;
  if (a.topk_ids == nullptr || a.sorted_ids == nullptr || a.sorted_expert_ids == nullptr || a.num_valid_ids == nullptr)
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
  p.key_bits = key_bits_for(a.experts);
  p.capacity = static_cast<int>(sort_capacity(a.tokens, a.topk, a.experts, a.block_m));
  p.max_blocks = static_cast<int>(sort_max_blocks(a.tokens, a.topk, a.experts, a.block_m));

  if (resolve(a.path, a.tokens, a.topk, a.experts) == SortPath::SingleBlock) {
    const bool tail_kernel = a.fill_unused && p.capacity > kFillInBlockMax;
    p.fill = a.fill_unused && !tail_kernel;
    gpu::ErrorCode e;
    if (p.n <= 256 * 4)
      e = launch_single_block<256, 4>(p, stream);
    else if (p.n <= 512 * 8)
      e = launch_single_block<512, 8>(p, stream);
    else
      e = launch_single_block<1024, 8>(p, stream);
    if (e != gpu::kSuccess || !tail_kernel) return e;
    fill_tail_kernel<<<grid_for(static_cast<size_t>(p.capacity)), kGridThreads, 0, stream>>>(p);
    return gpu::get_last_error();
  }

  size_t temp = 0;
  if (auto e = radix_temp_bytes(p.n, p.experts, temp); e != gpu::kSuccess) return e;
  Workspace w = layout(a.workspace, p.n, p.experts, temp);
  if (a.workspace == nullptr || a.workspace_bytes < w.total) return gpu::kErrorInvalidValue;
  p.fill = a.fill_unused;

  keys_kernel<<<grid_for(static_cast<size_t>(p.n)), kGridThreads, 0, stream>>>(p, w.keys, w.vals, w.ustart, w.cnt);
  if (auto e = gpu::get_last_error(); e != gpu::kSuccess) return e;
  unsigned *keys = w.keys, *keys_alt = w.keys_alt;
  int *vals = w.vals, *vals_alt = w.vals_alt;
  size_t temp_bytes = w.temp_bytes;
  if (auto e = gpu::prim::device_radix_sort_pairs(w.temp, temp_bytes, keys, keys_alt, vals, vals_alt, p.n, 0, p.key_bits,
                                                  stream);
      e != gpu::kSuccess)
    return e;
  bounds_kernel<<<grid_for(static_cast<size_t>(p.n)), kGridThreads, 0, stream>>>(p, keys, w.ustart, w.cnt);
  if (auto e = gpu::get_last_error(); e != gpu::kSuccess) return e;
  scan_kernel<<<1, kScanThreads, 0, stream>>>(p, w.ustart, w.cnt, w.pstart, w.lid);
  if (auto e = gpu::get_last_error(); e != gpu::kSuccess) return e;
  const size_t smem = static_cast<size_t>(p.experts + 1) * sizeof(int);
  const size_t work = static_cast<size_t>(p.capacity > p.n ? p.capacity : p.n);
  scatter_kernel<<<grid_for(work), kGridThreads, smem, stream>>>(p, keys, vals, w.ustart, w.cnt, w.pstart, w.lid);
  return gpu::get_last_error();
}

}  // namespace cktune::kernels::moe_2stages
