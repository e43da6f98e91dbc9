#pragma once
// The kernel families AITER tunes, and everything about their tables that is fixed data:
// key columns, untuned and tuned schemas, default file names, the env var that names the tuned file.
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace cktune {

enum class Family {
  A8W8,                       // per-token / per-channel ("PTPC")
  A8W8Blockscale,             // 1x128 activation scales, 128x128 weight scales
  A8W8BlockscaleBpreshuffle,  // same math, weights pre-shuffled, x_scale transposed
  A8W8Bpreshuffle,            // PTPC with pre-shuffled weights
  A4W4Blockscale,             // fp4 with 1x32 scales
  BatchedA8W8,
  BatchedBf16,
  Moe2Stages,                 // fused MoE, 2 stages
};

inline constexpr Family kAllFamilies[] = {
    Family::A8W8,           Family::A8W8Blockscale, Family::A8W8BlockscaleBpreshuffle, Family::A8W8Bpreshuffle,
    Family::A4W4Blockscale, Family::BatchedA8W8,    Family::BatchedBf16,               Family::Moe2Stages,
};

enum class TableKind { Untuned, Tuned };

struct FamilySpec {
  Family family;
  std::string_view name;                           // "a8w8_blockscale": used on the command line and in JSON
  std::span<const std::string_view> untuned;       // untuned header = key columns after gfx,cu_num
  std::span<const std::string_view> tuned;         // tuned header as AITER writes a new file
  std::string_view size_column;                    // the swept dimension: "M" or "token"
  std::string_view untuned_file;                   // AITER's default file names under aiter/configs/
  std::string_view tuned_file;
  std::string_view env_var;                        // AITER_CONFIG_*
  bool has_libtype;                                // tuned schema carries a libtype column
  bool is_moe;
  bool is_batched;
};

const FamilySpec& spec(Family f);
std::string_view family_name(Family f);
std::optional<Family> family_from_name(std::string_view name);

// The family whose tuned (or untuned) file name occurs in `path`'s base name, longest match first, so
// ".../a8w8_blockscale_bpreshuffle_tuned_gemm.csv" is not taken for a8w8_blockscale. Model-config
// names such as "a8w8_blockscale_tuned_gemm_ds_v3.csv" and "dsv3_a8w8_bpreshuffle_tuned_gemm.csv" match too.
std::optional<Family> family_from_file_name(std::string_view path);

// Column names that are part of the key in tuned tables (besides these, gfx and cu_num lead).
inline std::span<const std::string_view> key_columns(Family f) { return spec(f).untuned; }

// Legacy tables without a gfx column: the arch that AITER assumes from cu_num (256 -> gfx950,
// 80 and 304 -> gfx942); empty when unknown.
std::string_view legacy_gfx_for_cu_num(long cu_num);

}  // namespace cktune
