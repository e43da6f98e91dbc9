#pragma once
// The rows capture writes: per family, key -> set of sizes (M or token), the size sweeps that fill them,
// and the conversion to and from AITER's untuned CSV (exact header, deterministic order).
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cktune/formats/csv.hpp"
#include "cktune/formats/family.hpp"

namespace cktune::capture {

// Which M values a GEMM key gets.
enum class MSweep {
  Observed,  // only the M values seen in the log
  Pow2,      // 1, 2, 4, ..., 32768 (16 per key), what AITER's model_configs tables use
  Vllm,      // vLLM's default CUDA-graph batch sizes 1, 2, 4, 8, 16..512 step 8, plus 1024 and 8192
};

std::string_view m_sweep_name(MSweep s);
std::optional<MSweep> m_sweep_from_name(std::string_view name);

// The sizes a sweep adds (empty for Observed).
std::vector<std::int64_t> m_sweep_sizes(MSweep s);

// MoE token sweep: powers of two 1..32768 -- exactly the token keys AITER's runtime looks up below its
// 32768 tier (formats/lookup.hpp).
std::vector<std::int64_t> token_sweep_sizes();

// key text (untuned key columns except the size, comma-joined, AITER column order) -> sizes.
// std::map/std::set keep everything deterministic; build_untuned_table applies the numeric order.
struct UntunedRows {
  std::map<std::string, std::set<std::int64_t>> keys;
  size_t row_count() const;
};

// AITER's untuned CSV for `f`: header = spec(f).untuned exactly; one row per (key, size), no duplicates;
// sorted by the key columns in header order (numerically where both cells are integers, else as text),
// then by the size. For GEMM that is N, K(, q_dtype_w), then M; batched: B, N, K, then M.
CsvTable build_untuned_table(Family f, const UntunedRows& rows);

// The rows of an existing untuned table (for --append). Throws InputError naming file:line:col when the
// header is not AITER's untuned header for `f` or a size cell is not a positive integer.
UntunedRows rows_from_table(Family f, const CsvTable& table);

}  // namespace cktune::capture
