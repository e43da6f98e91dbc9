#pragma once
// FP8 block-scaled GEMM (AITER family a8w8_blockscale): the hand-written instance table.
//
//   Y[m,n] = sum_k (XQ[m,k] * x_scale[m,k/128]) * (WQ[n,k] * w_scale[n/128,k/128])
//   XQ [M,K] fp8 e4m3fn row-major, WQ [N,K] fp8 row-major, x_scale [M,K/128] fp32 row-major,
//   w_scale [ceil(N/128),K/128] fp32 row-major, Y [M,N] bf16 row-major; fp32 accumulation with
//   the two scales applied to each 128-K partial sum; K must be a multiple of 128.
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
};
using VariantName = EnumName<Variant>;
inline constexpr VariantName kVariantNames[] = {
    {Variant::SplitKMma, "mma"},
    {Variant::Wgmma, "wgmma"},
    {Variant::WgmmaDb, "wgmma2"},
    {Variant::WgmmaPersistent, "wgmmap"},
    {Variant::WgmmaPersistentDb, "wgmmap2"},
};
std::string_view to_string(Variant v);

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
};

// Every instance, in id order.
std::span<const InstanceParams> instances();

struct Args {
  const uint8_t* xq;     // [M,K]
  const float* x_scale;  // [M,K/128]
  const uint8_t* wq;     // [N,K]
  const float* w_scale;  // [ceil(N/128),K/128]
  uint16_t* y;           // [M,N] bf16 bits
  int M, N, K;
  void* workspace;       // workspace_bytes() bytes, 256-byte aligned; see prepare_workspace()
  size_t workspace_bytes;
};

// nullptr = the instance can run this shape on a device of compute capability `sm`
// (major*10+minor); otherwise a sentence saying why not.
const char* why_not(const InstanceParams& p, int M, int N, int K, int sm = 90);

// Device scratch the instance needs for (M,N,K): split-K partials and tile counters. 0 = none.
size_t workspace_bytes(const InstanceParams& p, int M, int N, int K);

// Must run once on a freshly allocated workspace (zeroes the tile counters; every launch leaves
// them zero again). Enqueued on `stream`, no sync.
gpu::ErrorCode prepare_workspace(void* workspace, size_t bytes, gpu::Stream stream);

// Enqueue the GEMM. No synchronisation, no allocation. Returns the launch error, if any.
// Precondition: why_not(p, M, N, K) == nullptr and args.workspace_bytes >= workspace_bytes(...).
gpu::ErrorCode launch(const InstanceParams& p, const Args& a, gpu::Stream stream);

// The untuned default: what bench runs for a shape without a tuned row. Index into instances().
int default_instance(int M, int N, int K, int sm_count, int sm = 90);

// The name of an instance, built from its fields only (e.g. "mma_m16_n64_k128_st4_w4_sk8").
// Exposed so that tests can check the names are unique and stable.
std::string instance_name(const InstanceParams& p);

}  // namespace cktune::kernels::a8w8_blockscale
