#include "cktune/verify/check.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <vector>

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/numerics/bf16.hpp"
#include "cktune/numerics/parallel.hpp"

namespace cktune {

void poison_nan(float* out, int64_t n) { std::fill_n(out, n, std::bit_cast<float>(kPoisonF32Bits)); }
void poison_nan(uint16_t* out, int64_t n) { std::fill_n(out, n, kPoisonBf16Bits); }
bool is_poison(float v) { return std::bit_cast<uint32_t>(v) == kPoisonF32Bits; }
bool is_poison_bf16(uint16_t v) { return v == kPoisonBf16Bits; }

double aiter_err_ratio(const float* ref, const float* out, int64_t n, double rtol, double atol) {
  if (n <= 0) return 0;
  int64_t bad = 0;
  bool non_finite = false;
  double max_err = 0, max_out = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double r = ref[i], o = out[i];
    if (!std::isfinite(o) || !std::isfinite(r)) {
      non_finite = true;
      ++bad;
      continue;
    }
    const double d = std::fabs(r - o);
    max_err = std::max(max_err, d);
    max_out = std::max(max_out, std::fabs(o));
    if (d > atol + rtol * std::fabs(o)) ++bad;
  }
  if (non_finite || max_err > 0.5 * std::max(max_out, 1.0)) return 1.0;
  return static_cast<double>(bad) / static_cast<double>(n);
}

namespace {

struct F32Out {
  const float* p;
  float value(int64_t i) const { return p[i]; }
  bool poison(int64_t i) const { return is_poison(p[i]); }
};
struct Bf16Out {
  const uint16_t* p;
  float value(int64_t i) const { return bf16_to_float(p[i]); }
  bool poison(int64_t i) const { return is_poison_bf16(p[i]); }
};

struct RowStats {
  int64_t bad = 0, non_finite = 0;
  double max_err = 0, max_out = 0;
};

// Threads for a comparison of `cells` cells: every hardware thread only when each gets enough work to pay for its
// wake-up (a cell takes ~4.5 ns on one thread of the H200 host; bench/check_cost.cpp), as asked otherwise.
int check_threads(int requested, int64_t cells) {
  if (requested > 0) return requested;
  constexpr int64_t kCellsPerThread = 1 << 14;
  return static_cast<int>(std::clamp<int64_t>(cells / kCellsPerThread, 1, resolve_threads(0)));
}

// ref row i corresponds to output row out_rows[i] (or i itself when out_rows is empty). With `gathered`,
// `out` holds only the checked rows ([checked_rows, cols], row i = output row out_rows[i]) and the count
// of unwritten cells over the whole output comes from the caller (counted where the output lives).
template <class Out>
CheckResult check_impl(const float* ref, Out out, std::span<const int64_t> out_rows, int64_t checked_rows, int64_t rows,
                       int64_t cols, const Tolerance& tol, int threads, const int64_t* gathered_unwritten = nullptr) {
  const bool gathered = gathered_unwritten != nullptr;
  auto out_row = [&](int64_t i) { return gathered || out_rows.empty() ? i : out_rows[static_cast<size_t>(i)]; };
  if (rows < 0 || cols < 0) throw Error(fmt::format("check_output: bad shape {}x{}", rows, cols));
  for (int64_t r : out_rows)
    if (r < 0 || r >= rows) throw Error(fmt::format("check_output_rows: row {} outside [0, {})", r, rows));
  CheckResult res;
  res.checked = checked_rows * cols;

  // All written: scan the whole output, whatever was sampled (or take the caller's count).
  if (gathered) {
    res.unwritten = *gathered_unwritten;
  } else {
    const int64_t total = rows * cols;
    const int scan_threads = check_threads(threads, total);
    std::vector<int64_t> unwritten_per_chunk(static_cast<size_t>(scan_threads), 0);
    const int64_t chunks = static_cast<int64_t>(unwritten_per_chunk.size());
    parallel_for(chunks, scan_threads, [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        int64_t cnt = 0;
        for (int64_t i = total * c / chunks, e = total * (c + 1) / chunks; i < e; ++i) cnt += out.poison(i);
        unwritten_per_chunk[static_cast<size_t>(c)] = cnt;
      }
    });
    res.unwritten = std::accumulate(unwritten_per_chunk.begin(), unwritten_per_chunk.end(), int64_t{0});
  }

  std::vector<RowStats> stats(static_cast<size_t>(checked_rows));
  parallel_for(checked_rows, check_threads(threads, checked_rows * cols), [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      const int64_t orow = out_row(i);
      // The row's sums in locals, not through stats[i]: the compiler cannot keep a reference's fields in
      // registers across the stores it cannot prove apart (2.5x slower a cell, bench/check_cost.cpp).
      RowStats s;
      const float* ref_row = ref + i * cols;
      const int64_t out0 = orow * cols;
      const double atol = tol.atol, rtol = tol.rtol;
      for (int64_t c = 0; c < cols; ++c) {
        const double r = ref_row[c];
        const double o = out.value(out0 + c);
        if (!std::isfinite(o) || !std::isfinite(r)) {
          ++s.non_finite;
          ++s.bad;
          continue;
        }
        const double d = std::fabs(r - o);
        s.max_err = std::max(s.max_err, d);
        s.max_out = std::max(s.max_out, std::fabs(o));
        if (d > atol + rtol * std::fabs(o)) ++s.bad;
      }
      stats[static_cast<size_t>(i)] = s;
    }
  });

  int64_t bad = 0, non_finite = 0;
  double max_out = 0;
  for (int64_t i = 0; i < checked_rows; ++i) {
    const RowStats& s = stats[static_cast<size_t>(i)];
    bad += s.bad;
    non_finite += s.non_finite;
    res.max_abs_err = std::max(res.max_abs_err, s.max_err);
    max_out = std::max(max_out, s.max_out);
    const double row_ratio = cols > 0 ? static_cast<double>(s.bad) / static_cast<double>(cols) : 0.0;
    if (res.worst_row < 0 || row_ratio > res.worst_row_err_ratio) {
      res.worst_row_err_ratio = row_ratio;
      res.worst_row = out_rows.empty() ? i : out_rows[static_cast<size_t>(i)];
    }
    if (row_ratio > tol.max_row_err_ratio) ++res.bad_rows;
  }
  // Poison cells inside the checked rows are not "computed NaN"; they are reported as unwritten.
  int64_t poison_checked = 0;
  for (int64_t i = 0; i < checked_rows && res.unwritten > 0; ++i) {
    const int64_t orow = out_row(i);
    for (int64_t c = 0; c < cols; ++c) poison_checked += out.poison(orow * cols + c);
  }
  res.non_finite = non_finite - poison_checked;
  res.catastrophic = non_finite > 0 || res.max_abs_err > 0.5 * std::max(max_out, 1.0);
  res.err_ratio = res.checked == 0 ? 0.0 : (res.catastrophic ? 1.0 : static_cast<double>(bad) / static_cast<double>(res.checked));

  if (res.unwritten > 0) {
    res.verdict = Verdict::Incorrect;
    res.reason = fmt::format("{} outputs not written", res.unwritten);
  } else if (res.catastrophic) {
    res.verdict = Verdict::Incorrect;
    res.reason = res.non_finite > 0 ? fmt::format("catastrophic: {} NaN/Inf outputs", res.non_finite)
                                    : fmt::format("catastrophic: max |ref-out| {:.4g} exceeds half of max(max |out|, 1) = {:.4g}",
                                                  res.max_abs_err, std::max(max_out, 1.0));
  } else if (res.err_ratio > tol.max_err_ratio) {
    res.verdict = Verdict::Incorrect;
    res.reason = fmt::format("errRatio {:.4f} exceeds {:.4f}", res.err_ratio, tol.max_err_ratio);
  } else if (res.bad_rows > 0) {
    res.verdict = Verdict::Incorrect;
    res.reason = fmt::format("row {} has errRatio {:.4f} > {:.4f} ({} rows over the limit)", res.worst_row,
                             res.worst_row_err_ratio, tol.max_row_err_ratio, res.bad_rows);
  }
  return res;
}

}  // namespace

CheckResult check_output(const float* ref, const float* out, int64_t rows, int64_t cols, const Tolerance& tol, int threads) {
  return check_impl(ref, F32Out{out}, {}, rows, rows, cols, tol, threads);
}
CheckResult check_output(const float* ref, const uint16_t* out, int64_t rows, int64_t cols, const Tolerance& tol,
                         int threads) {
  return check_impl(ref, Bf16Out{out}, {}, rows, rows, cols, tol, threads);
}
CheckResult check_output_rows(const float* ref_rows, const float* out, std::span<const int64_t> row_indices, int64_t rows,
                              int64_t cols, const Tolerance& tol, int threads) {
  return check_impl(ref_rows, F32Out{out}, row_indices, static_cast<int64_t>(row_indices.size()), rows, cols, tol, threads);
}
CheckResult check_output_rows(const float* ref_rows, const uint16_t* out, std::span<const int64_t> row_indices,
                              int64_t rows, int64_t cols, const Tolerance& tol, int threads) {
  return check_impl(ref_rows, Bf16Out{out}, row_indices, static_cast<int64_t>(row_indices.size()), rows, cols, tol, threads);
}
CheckResult check_gathered_rows(const float* ref_rows, const uint16_t* out_rows, std::span<const int64_t> row_indices,
                                int64_t rows, int64_t cols, int64_t unwritten, const Tolerance& tol, int threads) {
  if (unwritten < 0) throw Error("check_gathered_rows: negative unwritten count");
  return check_impl(ref_rows, Bf16Out{out_rows}, row_indices, static_cast<int64_t>(row_indices.size()), rows, cols, tol,
                    threads, &unwritten);
}

}  // namespace cktune
