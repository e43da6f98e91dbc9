#include "cktune/numerics/fp8.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>

namespace cktune {

namespace {

// Decodes one code from first principles; only used to build the tables.
float decode_slow(uint8_t code, Fp8Format f) {
  const bool fnuz = f == Fp8Format::E4M3FNUZ;
  if (fnuz ? code == 0x80 : (code & 0x7f) == 0x7f) return std::numeric_limits<float>::quiet_NaN();
  const int bias = fnuz ? 8 : 7;
  const int exp_field = (code >> 3) & 0xf;
  const int mant = code & 0x7;
  // Subnormals: exponent field 0 means 0.mmm * 2^(1 - bias).
  const float mag = exp_field == 0 ? std::ldexp(static_cast<float>(mant), 1 - bias - 3)
                                   : std::ldexp(static_cast<float>(8 + mant), exp_field - bias - 3);
  return (code & 0x80) ? -mag : mag;
}

std::array<float, 256> build_table(Fp8Format f) {
  std::array<float, 256> t{};
  for (int c = 0; c < 256; ++c) t[static_cast<size_t>(c)] = decode_slow(static_cast<uint8_t>(c), f);
  return t;
}

const std::array<float, 256> kFnTable = build_table(Fp8Format::E4M3FN);
const std::array<float, 256> kFnuzTable = build_table(Fp8Format::E4M3FNUZ);

}  // namespace

std::string_view to_string(Fp8Format f) {
  for (const auto& n : kFp8FormatNames)
    if (n.value == f) return n.text;
  return "?";
}

std::optional<Fp8Format> fp8_format_from_string(std::string_view s) {
  if (s.starts_with("torch.")) s.remove_prefix(6);
  if (s.starts_with("float8_")) s.remove_prefix(7);
  for (const auto& n : kFp8FormatNames)
    if (n.short_name == s) return n.value;
  return std::nullopt;
}

float fp8_max(Fp8Format f) { return f == Fp8Format::E4M3FN ? 448.0f : 240.0f; }
int fp8_bias(Fp8Format f) { return f == Fp8Format::E4M3FN ? 7 : 8; }
uint8_t fp8_nan_code(Fp8Format f) { return f == Fp8Format::E4M3FN ? 0x7f : 0x80; }
bool fp8_is_nan(uint8_t code, Fp8Format f) {
  return f == Fp8Format::E4M3FN ? (code & 0x7f) == 0x7f : code == 0x80;
}

std::span<const float, 256> fp8_table(Fp8Format f) {
  return f == Fp8Format::E4M3FN ? std::span<const float, 256>(kFnTable) : std::span<const float, 256>(kFnuzTable);
}

uint8_t float_to_fp8(float x, Fp8Format f, Fp8Overflow mode) {
  const bool fnuz = f == Fp8Format::E4M3FNUZ;
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  const uint8_t sign = (bits >> 24) & 0x80;
  const uint32_t abs_bits = bits & 0x7fffffffu;
  // The largest finite magnitude code: 0x7e (448) for e4m3fn, where 0x7f is NaN; 0x7f (240) for fnuz.
  const uint32_t max_code = fnuz ? 0x7f : 0x7e;
  const uint8_t nan = fnuz ? 0x80 : static_cast<uint8_t>(0x7f | sign);

  if (abs_bits > 0x7f800000u) return nan;  // NaN in, NaN out
  const bool is_inf = abs_bits == 0x7f800000u;

  uint32_t code;  // magnitude code, may exceed max_code (overflow) before the check below
  if (is_inf) {
    code = max_code + 1;
  } else {
    const int bias = fnuz ? 8 : 7;
    const int exp = static_cast<int>(abs_bits >> 23) - 127;
    if (exp < 1 - bias) {
      // Subnormal range (or zero): count in units of the smallest subnormal 2^(-bias-2) and round half
      // to even, in integers (no libm, independent of the floating-point environment). The input is
      // m * 2^(e - 150) with m its 24-bit significand and e its exponent field (1 for float subnormals,
      // which have no implicit one), so units = m >> s with s = 150 - e - (bias + 2) >= 21. Beyond
      // s = 25 the value is below a quarter unit and rounds to 0. A result of 8 is the smallest
      // normal, whose code is 8.
      const uint32_t e = abs_bits >> 23;
      const uint32_t m = (abs_bits & 0x7fffffu) | (e != 0 ? 0x800000u : 0u);
      const int s = 150 - static_cast<int>(std::max(e, 1u)) - (bias + 2);
      code = 0;
      if (s <= 25) {
        code = m >> s;
        const uint32_t rest = m & ((1u << s) - 1u), half = 1u << (s - 1);
        if (rest > half || (rest == half && (code & 1u))) ++code;
      }
    } else {
      // Normal: keep 3 of the 23 mantissa bits; a carry out of the mantissa bumps the exponent,
      // which is exactly what the code arithmetic wants.
      const uint32_t mant = abs_bits & 0x7fffffu;
      code = (static_cast<uint32_t>(exp + bias) << 3) | (mant >> 20);
      const uint32_t rest = mant & 0xfffffu;
      if (rest > 0x80000u || (rest == 0x80000u && (code & 1u))) ++code;
    }
  }

  if (code > max_code) {
    if (mode == Fp8Overflow::Nan) return nan;
    code = max_code;
  }
  if (code == 0 && fnuz) return 0;  // e4m3fnuz has no negative zero (0x80 is NaN)
  return static_cast<uint8_t>(code | sign);
}

}  // namespace cktune
