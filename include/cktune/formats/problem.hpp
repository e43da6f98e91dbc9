#pragma once
// A problem is one untuned row: the family plus its untuned key cells in AITER's column order.
#include <string>
#include <string_view>
#include <vector>

#include "cktune/core/peaks.hpp"
#include "cktune/formats/family.hpp"

namespace cktune {

struct ProblemKey {
  Family family = Family::A8W8Blockscale;
  std::vector<std::string> cells;  // spec(family).untuned order, canonical text (integers plain, booleans 1/0)

  const std::string& get(std::string_view column) const;  // throws Error when the family has no such column
  long get_int(std::string_view column) const;
  long size() const { return get_int(spec(family).size_column); }  // M or token
  // "M=1,N=2112,K=7168": readable, used in logs and progress lines.
  std::string to_string() const;
  // The key without the size column ("2112,7168"), for grouping by (N,K) / MoE config.
  std::string group() const;
  // Work in FLOPs (2·M·N·K·B for GEMMs; both MoE stages for fused MoE), for scheduling and tflops.
  double flops() const;
  // Bytes the problem must move at least (inputs once, output once), for bw and the roofline floor. Fused MoE:
  // the weights of the experts its tokens reach under uniform routing, on average (skewed routing reaches fewer).
  double min_bytes() const;
  // Fused MoE: the same with the number of experts one routing reaches (MoeInputs::experts_reached), which is what
  // a run on that routing moves: a seeded draw of 16 DeepSeek-V3 tokens reaches 106 experts where 102 are expected.
  // Other families: min_bytes().
  double min_bytes(double experts_reached) const;
  // `bytes` where a run counted them (> 0 and finite: a workload's own, Workload::min_bytes), else min_bytes().
  double min_bytes_or(double bytes) const;
  // The operand type the tensor cores multiply in, which sets the compute floor: the wider of the activation
  // and weight types (a bf16 x int4 MoE runs its MMAs in bf16); int4 runs as int8.
  MathType math_type() const;

  friend bool operator==(const ProblemKey&, const ProblemKey&) = default;
  friend auto operator<=>(const ProblemKey&, const ProblemKey&) = default;
};

// Canonical text of one key cell (trims, integers without leading zeros/+, True/true -> 1, False -> 0).
std::string canonical_cell(std::string_view column, std::string_view cell);

// A GEMM view of a problem (B = 1 for non-batched families).
struct GemmDims {
  long B = 1, M = 0, N = 0, K = 0;
};
GemmDims gemm_dims(const ProblemKey& key);

}  // namespace cktune
