#pragma once
// bfloat16 as raw bits: the outputs of every kernel family are bf16.
#include <bit>
#include <cstdint>

namespace cktune {

// Round to nearest, ties to even. NaN stays NaN (quiet bit forced so a NaN never rounds to Inf);
// overflow goes to +-Inf as IEEE rounding says.
inline uint16_t float_to_bf16(float x) {
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  const uint32_t lsb = (bits >> 16) & 1u;
  return static_cast<uint16_t>((bits + 0x7fffu + lsb) >> 16);
}

inline float bf16_to_float(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

inline float round_to_bf16(float x) { return bf16_to_float(float_to_bf16(x)); }

inline constexpr uint16_t kBf16QuietNan = 0x7fc0;

}  // namespace cktune
