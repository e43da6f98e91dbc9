#pragma once
// FP8 e4m3 in the two flavours AITER meets: e4m3fn (gfx950, NVIDIA) and e4m3fnuz (gfx942).
// Decoding is a 256-entry table per format; encoding rounds to nearest, ties to even.
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace cktune {

enum class Fp8Format {
  E4M3FN,    // bias 7, max 448, NaN = 0x7f / 0xff, has -0 (0x80)
  E4M3FNUZ,  // bias 8, max 240, NaN = 0x80 only, no -0
};

struct Fp8FormatName {
  Fp8Format value;
  std::string_view text;   // torch dtype string, as AITER writes it in q_dtype_* cells
  std::string_view short_name;
};
inline constexpr Fp8FormatName kFp8FormatNames[] = {
    {Fp8Format::E4M3FN, "torch.float8_e4m3fn", "e4m3fn"},
    {Fp8Format::E4M3FNUZ, "torch.float8_e4m3fnuz", "e4m3fnuz"},
};
std::string_view to_string(Fp8Format f);  // torch name
// Accepts the torch name or the short name ("e4m3fn", "float8_e4m3fnuz", ...).
std::optional<Fp8Format> fp8_format_from_string(std::string_view s);

// What float_to_fp8 does with a finite value beyond the largest finite code (after rounding).
enum class Fp8Overflow {
  Saturate,  // clamp to +-max; +-Inf also clamps; NaN stays NaN. What quantisers want.
  Nan,       // produce NaN, like torch's `tensor.to(float8_*)`: for e4m3fn |x| > 464 -> 0x7f|sign,
             // for e4m3fnuz |x| >= 248 -> 0x80 (values that round past the top code); Inf -> NaN.
};

float fp8_max(Fp8Format f);                 // 448 or 240
int fp8_bias(Fp8Format f);                  // 7 or 8
bool fp8_is_nan(uint8_t code, Fp8Format f);
uint8_t fp8_nan_code(Fp8Format f);          // 0x7f or 0x80

// All 256 decoded values of a format (NaN codes decode to quiet NaN).
std::span<const float, 256> fp8_table(Fp8Format f);
inline float fp8_to_float(uint8_t code, Fp8Format f) { return fp8_table(f)[code]; }

// Round to nearest, ties to even. NaN input -> NaN code (e4m3fn keeps the sign: 0x7f or 0xff).
// e4m3fnuz has no negative zero: anything rounding to -0 becomes 0x00.
uint8_t float_to_fp8(float x, Fp8Format f, Fp8Overflow mode = Fp8Overflow::Saturate);

}  // namespace cktune
