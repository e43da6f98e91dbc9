#pragma once
// Output verification: AITER's errRatio (so numbers compare with AITER's tables) plus two checks
// AITER lacks: every output cell must have been written (outputs are poisoned with a NaN pattern
// before the run) and no single row may be wrecked (a whole-tensor ratio hides a kernel that ruins
// a few rows). See docs/arch/numerics.md for what each tolerance means.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cktune/verify/verdict.hpp"

namespace cktune {

struct Tolerance {
  double rtol = 1e-2;  // an element is bad when |ref - out| > atol + rtol * |out| (AITER's rule)
  double atol = 1e-2;
  double max_err_ratio = 0.05;      // AITER's --errRatio: 0.05 for GEMMs, 0.1 for MoE
  // A row whose own fraction of bad elements exceeds this fails the candidate even when the global
  // ratio passes. Honest kernels have ~0 bad elements (bf16 rounding is 2^-9 relative, far below
  // rtol), and a wrecked row has ~1, so 0.2 separates them with margin; it is above 1/N for any
  // N >= 6, so one stray element cannot fail a row of normal width.
  double max_row_err_ratio = 0.2;

  static Tolerance gemm() { return {}; }
  static Tolerance moe() {
    Tolerance t;
    t.max_err_ratio = 0.1;
    return t;
  }
};

struct CheckResult {
  double err_ratio = 0;         // AITER's errRatio over the checked elements; 1.0 when catastrophic
  double max_abs_err = 0;       // over the checked elements that are finite
  bool catastrophic = false;    // NaN/Inf in the output, or max |ref-out| > 0.5 * max(max |out|, 1)
  int64_t unwritten = 0;        // cells (over the whole output) still holding the poison pattern
  int64_t non_finite = 0;       // NaN/Inf cells among the checked ones that are not poison
  int64_t checked = 0;          // elements compared
  int64_t worst_row = -1;       // row index (in the full output) with the highest error ratio
  double worst_row_err_ratio = 0;
  int64_t bad_rows = 0;         // rows above max_row_err_ratio
  Verdict verdict = Verdict::Passed;
  std::string reason;           // empty when passed
  // Checked stage by stage (fused MoE: stage 1, then stage 2 fed stage 1's own output): each stage's
  // errRatio (AITER's err1, err2); err_ratio is then the larger. Empty for a single check.
  std::vector<double> stage_err_ratios;
};

// Poison: a quiet NaN with a payload no arithmetic produces, so "not written" and "computed NaN"
// are told apart.
inline constexpr uint32_t kPoisonF32Bits = 0x7fc5a5a5u;
inline constexpr uint16_t kPoisonBf16Bits = 0x7fe5u;
void poison_nan(float* out, int64_t n);
void poison_nan(uint16_t* out, int64_t n);
bool is_poison(float v);
bool is_poison_bf16(uint16_t v);

// ref and out are [rows, cols] row-major.
CheckResult check_output(const float* ref, const float* out, int64_t rows, int64_t cols, const Tolerance& tol = {},
                         int threads = 0);
CheckResult check_output(const float* ref, const uint16_t* out_bf16, int64_t rows, int64_t cols,
                         const Tolerance& tol = {}, int threads = 0);

// Sampled verification: ref_rows is [row_indices.size(), cols] (from ref_*_rows), out is the full
// [rows, cols] output. Error ratios use the sampled rows only; the all-written check scans all of out.
CheckResult check_output_rows(const float* ref_rows, const float* out, std::span<const int64_t> row_indices, int64_t rows,
                              int64_t cols, const Tolerance& tol = {}, int threads = 0);
CheckResult check_output_rows(const float* ref_rows, const uint16_t* out_bf16, std::span<const int64_t> row_indices,
                              int64_t rows, int64_t cols, const Tolerance& tol = {}, int threads = 0);

// The same, where the output lives elsewhere (device memory): out_rows holds only the sampled rows,
// [row_indices.size(), cols] in row_indices order, and `unwritten` is the poison count over the whole
// output, counted where it lives. Same verdicts as check_output_rows on the full output.
CheckResult check_gathered_rows(const float* ref_rows, const uint16_t* out_rows, std::span<const int64_t> row_indices,
                                int64_t rows, int64_t cols, int64_t unwritten, const Tolerance& tol = {}, int threads = 0);

// AITER's errRatio alone (no row or written checks): the number its tuners write.
double aiter_err_ratio(const float* ref, const float* out, int64_t n, double rtol = 1e-2, double atol = 1e-2);

}  // namespace cktune
