#pragma once
// How AITER's runtime turns a problem size into a table key. capture, tune and merge --check share these:
// a row the runtime can never look up is wasted tuning time.
#include <cstdint>

namespace cktune {

// Next power of two >= n; 1 for n <= 1 (AITER's nextPow2).
std::int64_t next_pow2(std::int64_t n);

// GEMM lookup: the exact M first, then M padded by granularity (gemm_padded_m: M <= 256 -> multiple of
// 16, <= 1024 -> 32, <= 4096 -> 64, else 128), then M padded to a power of two (gemm_padded_m_pow2).
std::int64_t gemm_padded_m(std::int64_t m);
std::int64_t gemm_padded_m_pow2(std::int64_t m);

// Fused-MoE lookup key for `token` tokens: next power of two below 32768, then the tiers 32768 and 131072.
std::int64_t moe_token_key(std::int64_t token);

// A MoE table row with this `token` can be hit by some runtime token count (moe_token_key(t) == token).
bool moe_token_reachable(std::int64_t token);

}  // namespace cktune
