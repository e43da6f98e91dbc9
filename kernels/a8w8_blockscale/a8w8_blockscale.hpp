#pragma once
// FP8 GEMM with bf16 output, the hand-written instance tables of three AITER families that share the
// kernel bodies and differ in how the scales apply (Scaling):
//
// a8w8_blockscale (Scaling::Block128):
//   Y[m,n] = sum_k (XQ[m,k] * x_scale[m,k/128]) * (WQ[n,k] * w_scale[n/128,k/128])
//   x_scale [M,K/128] fp32 row-major, w_scale [ceil(N/128),K/128] fp32 row-major; the two scales are
//   applied to each 128-K partial sum.
// a8w8 (Scaling::PerToken) and a8w8_bpreshuffle (Scaling::PerTokenPreshuffledW):
//   Y[m,n] = (sum_k XQ[m,k] * WQ[n,k]) * x_scale[m] * w_scale[n]
//   x_scale [M] fp32, w_scale [N] fp32, applied once to the finished sum; with PerTokenPreshuffledW
//   WQ is in AITER's preshuffled layout (numerics/quant.hpp: 16x16-byte tiles), which needs N % 16 == 0.
//
//   XQ [M,K] fp8 e4m3fn row-major, WQ [N,K] fp8, Y [M,N] bf16 row-major; fp32 accumulation, each
//   128-K block's tensor-core partial promoted into it; K must be a multiple of 128. The int8 scalings
//   take int8 XQ and WQ; each 128-K block sums exactly in s32 (|sum| < 2^22) before the promotion.
//
// Plain data + can-run + launch: the registry lists and names instances from InstanceParams alone;
// only the measurement routine calls launch(). Nothing here names a vendor type beyond compat.hpp.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "../common/compat.hpp"
#include "cktune/core/names.hpp"

namespace cktune::kernels::a8w8_blockscale {

enum class Variant {
  SplitKMma,  // mma.sync m16n8k32 fp8 (sm_89+), Y^T = W * X^T so N takes the 16-wide side; split-K
  Wgmma,      // wgmma m64nNk32 fp8 + TMA, warp-specialised (sm_90a), per-128-K promotion
  WgmmaDb,    // Wgmma with two partial tiles in flight (next block's wgmma overlap the promotion)
  WgmmaPersistent,  // Wgmma as a persistent kernel (one CTA per SM walks the tiles), TMA-store epilogue
  WgmmaPersistentDb,  // WgmmaPersistent with k-blocks in pairs (promotion overlaps the next wgmma)
  WgmmaK,  // Wgmma with 2 or 4 warpgroups per 64-row band taking the k-blocks in turn (medium M)
  WgmmaSwap,  // decode (M <= 64): Y^T = W * X^T on wgmma, W rows on the 64-row side, tokens on N; split-K
  WgmmaFast,  // per-token only: Wgmma whose k-blocks add straight into the accumulator (fp8 fast accumulation)
  WgmmaPersistentFast,  // per-token only: WgmmaPersistent with fast accumulation
  DirectMma,  // decode (M <= 16): SplitKMma's Y^T = W * X^T fed from registers (no shared memory), K over warps
  WgmmaPersistentDbMcW,  // WgmmaPersistentDb in clusters of two along M that share W's k-blocks by TMA multicast
  WgmmaPersistentDbMcX,  // WgmmaPersistentDb in clusters of two along N that share X's k-blocks by TMA multicast
  WgmmaPersistentDbTail,  // WgmmaPersistentDb whose tiles past the last whole wave are split along K (workspace)
  Gemv,      // decode (M <= 8): CUDA-core dot products, 512 contiguous bytes of a weight row a warp load; fp32 sums
  GemvHalf,  // Gemv summing 8 products at a time as f16 pairs (fp8 only)
};
using VariantName = EnumName<Variant>;
inline constexpr VariantName kVariantNames[] = {
    {Variant::SplitKMma, "mma"},
    {Variant::Wgmma, "wgmma"},
    {Variant::WgmmaDb, "wgmma2"},
    {Variant::WgmmaPersistent, "wgmmap"},
    {Variant::WgmmaPersistentDb, "wgmmap2"},
    {Variant::WgmmaK, "wgmmak"},
    {Variant::WgmmaSwap, "wgmmas"},
    {Variant::WgmmaFast, "wgmmaf"},
    {Variant::WgmmaPersistentFast, "wgmmapf"},
    {Variant::DirectMma, "mmad"},
    {Variant::WgmmaPersistentDbMcW, "wgmmap2mw"},
    {Variant::WgmmaPersistentDbMcX, "wgmmap2mx"},
    {Variant::WgmmaPersistentDbTail, "wgmmap2t"},
    {Variant::Gemv, "gemv"},
    {Variant::GemvHalf, "gemvh"},
};
std::string_view to_string(Variant v);

enum class Scaling {
  Block128,                // a8w8_blockscale
  PerToken,                // a8w8: per-token x scales, per-channel w scales
  PerTokenPreshuffledW,    // a8w8_bpreshuffle: the same with W preshuffled
  PerTokenI8,              // a8w8 with int8 X and W (AITER's torch.int8 rows): warp MMA only
  PerTokenI8PreshuffledW,  // a8w8_bpreshuffle with int8 X and W: warp MMA only
};
inline constexpr bool is_int8(Scaling s) { return s == Scaling::PerTokenI8 || s == Scaling::PerTokenI8PreshuffledW; }
inline constexpr bool is_preshuffled(Scaling s) {
  return s == Scaling::PerTokenPreshuffledW || s == Scaling::PerTokenI8PreshuffledW;
}

struct InstanceParams {
  int id;            // index into instances(); stable
  const char* name;  // built by instance_name() from the fields below; unique and stable
  Variant variant;
  int tile_m;        // rows of X (and Y) per CTA
  int tile_n;        // rows of W (columns of Y) per CTA
  int tile_k;        // K bytes per pipeline stage (always 128 = one scale block)
  int stages;        // shared-memory pipeline depth
  int warps;         // warps per CTA
  int split_k;       // literal number of K slices (CTAs along K); 1 = none
  int min_sm;        // lowest compute capability (major*10+minor) the code path needs
  Scaling scaling = Scaling::Block128;  // which table the instance belongs to
};

// Every instance of a scaling's table, in id order (ids are per table).
std::span<const InstanceParams> instances(Scaling s = Scaling::Block128);

struct Args {
  const uint8_t* xq;     // [M,K]
  const float* x_scale;  // Block128: [M,K/128]; per-token: [M]
  const uint8_t* wq;     // [N,K] (preshuffled for PerTokenPreshuffledW)
  const float* w_scale;  // Block128: [ceil(N/128),K/128]; per-token: [N]
  uint16_t* y;           // [M,N] bf16 bits
  int M, N, K;
  void* workspace;       // workspace_bytes() bytes, 256-byte aligned; see prepare_workspace()
  size_t workspace_bytes;
};

// nullptr = the instance can run this shape on a device of compute capability `sm`
// (major*10+minor); otherwise a sentence saying why not.
const char* why_not(const InstanceParams& p, int M, int N, int K, int sm = 90);

// nullptr = the instance is worth timing on (M, N, K); otherwise it would run exactly as another row does there
// (a cluster pair with one tile in its direction, a split tail with nothing to split) and tune leaves it out. It
// can still run (why_not says whether): a row tuned at another M may name it for this shape.
const char* redundant_with(const InstanceParams& p, int M, int N, int K);

// Device scratch the instance needs for (M,N,K): split-K partials and tile counters. 0 = none.
size_t workspace_bytes(const InstanceParams& p, int M, int N, int K);

// Must run once on a freshly allocated workspace (zeroes the tile counters; every launch leaves
// them zero again). Enqueued on `stream`, no sync.
gpu::ErrorCode prepare_workspace(void* workspace, size_t bytes, gpu::Stream stream);

// Enqueue the GEMM. No synchronisation, no allocation. Returns the launch error, if any.
// Precondition: why_not(p, M, N, K) == nullptr and args.workspace_bytes >= workspace_bytes(...).
gpu::ErrorCode launch(const InstanceParams& p, const Args& a, gpu::Stream stream);

// The untuned default: what bench runs for a shape without a tuned row. Index into instances(s).
int default_instance(int M, int N, int K, int sm_count, int sm = 90, Scaling s = Scaling::Block128);

// The name of an instance, built from its fields only (e.g. "mma_m16_n64_k128_st4_w4_sk8"; the
// per-token tables prefix "pt_", the preshuffled one "ptps_", the int8 ones "pti8_" and "pti8ps_").
// Exposed so that tests can check the names are unique and stable.
std::string instance_name(const InstanceParams& p);

}  // namespace cktune::kernels::a8w8_blockscale
