#include "cktune/formats/lookup.hpp"

namespace cktune {

namespace {
constexpr std::int64_t kMoeTiers[] = {32768, 131072};

std::int64_t round_up(std::int64_t v, std::int64_t multiple) { return (v + multiple - 1) / multiple * multiple; }
}  // namespace

std::int64_t next_pow2(std::int64_t n) {
  std::int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

std::int64_t gemm_padded_m(std::int64_t m) {
  if (m <= 256) return round_up(m, 16);
  if (m <= 1024) return round_up(m, 32);
  if (m <= 4096) return round_up(m, 64);
  return round_up(m, 128);
}

std::int64_t gemm_padded_m_pow2(std::int64_t m) { return next_pow2(m); }

std::int64_t moe_token_key(std::int64_t token) {
  if (token < kMoeTiers[0]) return next_pow2(token);
  // Largest tier not above token; every token >= the first tier maps to one.
  std::int64_t key = kMoeTiers[0];
  for (std::int64_t tier : kMoeTiers)
    if (token >= tier) key = tier;
  return key;
}

bool moe_token_reachable(std::int64_t token) { return token >= 1 && moe_token_key(token) == token; }

}  // namespace cktune
