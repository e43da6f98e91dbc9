#include "cktune/ref/gemm.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/numerics/parallel.hpp"
#include "cktune/numerics/quant.hpp"

namespace cktune {

void BlockscaleGemmView::weight_row(int64_t n, uint8_t* row) const {
  if (!w_preshuffled) {
    std::copy_n(wq + n * K, K, row);
    return;
  }
  for (int64_t k = 0; k < K; ++k) row[k] = wq[preshuffled_index(n, k, N, K)];
}

void PtpcGemmView::weight_row(int64_t n, uint8_t* row) const {
  if (!w_preshuffled) {
    std::copy_n(wq + n * K, K, row);
    return;
  }
  for (int64_t k = 0; k < K; ++k) row[k] = wq[preshuffled_index(n, k, N, K)];
}

BlockscaleGemmView view_of(const BlockscaleGemmInputs& in) {
  BlockscaleGemmView v;
  v.M = in.M;
  v.N = in.N;
  v.K = in.K;
  v.fmt = in.fmt;
  v.xq = in.xq.data();
  v.x_scale = in.x_scale.data();
  v.wq = in.wq.data();
  v.w_scale = in.w_scale.data();
  return v;
}

PtpcGemmView view_of(const PtpcGemmInputs& in) {
  PtpcGemmView v;
  v.M = in.M;
  v.N = in.N;
  v.K = in.K;
  v.dtype = in.dtype;
  v.xq = in.xq.data();
  v.x_scale = in.x_scale.data();
  v.wq = in.wq.data();
  v.w_scale = in.w_scale.data();
  return v;
}

namespace {

// Rows are processed in groups so that one decoded weight row serves several output rows.
constexpr int64_t kRowGroup = 16;

// Dot product of two decoded ranges. Four partial sums for instruction-level parallelism; every
// partial sum is exact (see the header), so the order does not matter.
inline double dot(const double* a, const double* b, int64_t n) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int64_t k = 0;
  for (; k + 4 <= n; k += 4) {
    s0 += a[k] * b[k];
    s1 += a[k + 1] * b[k + 1];
    s2 += a[k + 2] * b[k + 2];
    s3 += a[k + 3] * b[k + 3];
  }
  for (; k < n; ++k) s0 += a[k] * b[k];
  return (s0 + s1) + (s2 + s3);
}

void check_view(const BlockscaleGemmView& v) {
  if (v.M <= 0 || v.N <= 0 || v.K <= 0) throw Error(fmt::format("blockscale GEMM: bad shape M={} N={} K={}", v.M, v.N, v.K));
  if (v.w_preshuffled && !can_preshuffle(v.N, v.K))
    throw Error(fmt::format("blockscale GEMM: preshuffled weights need N % 16 == 0 and K % 32 == 0 (N={} K={})", v.N, v.K));
}

// Decodes each group of X rows into doubles once and each weight row once per group, then hands every
// (row, column) pair to cell(i, m, n, x_row, w_row): the loop both references share. The work is cut
// into (row group, column range) items, enough for every thread: a sampled reference has only a few
// groups (16 to 32 rows at the GPU backend's budget), which alone would leave most cores idle.
template <class View, class Table, class Cell>
void for_each_output(const View& v, const Table& table, std::span<const int64_t> rows, int threads, Cell cell) {
  const int64_t K = v.K, N = v.N;
  const int64_t groups = ceil_div(static_cast<int64_t>(rows.size()), kRowGroup);
  if (groups == 0 || N <= 0) return;
  // Column ranges of at least 64 columns, so that decoding a group's X rows stays a small share.
  const int64_t want = 4 * static_cast<int64_t>(resolve_threads(threads));
  const int64_t col_ranges = std::clamp<int64_t>(ceil_div(want, groups), 1, std::max<int64_t>(1, N / 64));
  const int64_t cols = ceil_div(N, col_ranges);
  parallel_for(groups * col_ranges, threads, [&](int64_t item0, int64_t item1) {
    std::vector<double> xd(static_cast<size_t>(kRowGroup * K)), wd(static_cast<size_t>(K));
    std::vector<uint8_t> wrow(static_cast<size_t>(K));
    int64_t decoded_group = -1;
    for (int64_t item = item0; item < item1; ++item) {
      const int64_t g = item / col_ranges, c = item % col_ranges;
      const int64_t i0 = g * kRowGroup, i1 = std::min<int64_t>(i0 + kRowGroup, static_cast<int64_t>(rows.size()));
      if (g != decoded_group) {
        for (int64_t i = i0; i < i1; ++i) {
          const uint8_t* x = v.xq + rows[static_cast<size_t>(i)] * K;
          for (int64_t k = 0; k < K; ++k) xd[static_cast<size_t>((i - i0) * K + k)] = table[x[k]];
        }
        decoded_group = g;
      }
      const int64_t n0 = c * cols, n1 = std::min(N, n0 + cols);
      for (int64_t n = n0; n < n1; ++n) {
        v.weight_row(n, wrow.data());
        for (int64_t k = 0; k < K; ++k) wd[static_cast<size_t>(k)] = table[wrow[static_cast<size_t>(k)]];
        for (int64_t i = i0; i < i1; ++i) cell(i, rows[static_cast<size_t>(i)], n, xd.data() + (i - i0) * K, wd.data());
      }
    }
  });
}

// Computes output rows rows[lo..hi) into out rows [lo..hi).
void blockscale_rows(const BlockscaleGemmView& v, std::span<const int64_t> rows, float* out, int threads) {
  check_view(v);
  const int64_t K = v.K, N = v.N, kb_count = v.k_blocks();
  for_each_output(v, fp8_table(v.fmt), rows, threads,
                  [&](int64_t i, int64_t m, int64_t n, const double* x, const double* w) {
                    double acc = 0;
                    for (int64_t kb = 0; kb < kb_count; ++kb) {
                      const int64_t k0 = kb * kScaleBlock, len = std::min<int64_t>(kScaleBlock, K - k0);
                      const double block = dot(x + k0, w + k0, len);
                      acc += block * (static_cast<double>(v.xs(m, kb)) * static_cast<double>(v.ws(n, kb)));
                    }
                    out[i * N + n] = static_cast<float>(acc);
                  });
}

std::vector<int64_t> all_rows(int64_t m) {
  std::vector<int64_t> r(static_cast<size_t>(m));
  std::iota(r.begin(), r.end(), 0);
  return r;
}

void ptpc_rows(const PtpcGemmView& v, std::span<const int64_t> rows, float* out, int threads) {
  if (v.M <= 0 || v.N <= 0 || v.K <= 0) throw Error(fmt::format("a8w8 GEMM: bad shape M={} N={} K={}", v.M, v.N, v.K));
  const int64_t K = v.K, N = v.N;
  std::vector<double> table(256);
  for (int c = 0; c < 256; ++c) table[static_cast<size_t>(c)] = decode_q(static_cast<uint8_t>(c), v.dtype);
  for_each_output(v, table, rows, threads, [&](int64_t i, int64_t m, int64_t n, const double* x, const double* w) {
    // Exact for int8 (integer sums stay below 2^53); for fp8 exact unless the products'
    // exponents spread over more than ~45 bits, and even then off by 2^-53 relative.
    const double s = dot(x, w, K);
    out[i * N + n] = static_cast<float>(s * static_cast<double>(v.x_scale[m]) * static_cast<double>(v.w_scale[n]));
  });
}

}  // namespace

void ref_a8w8_blockscale(const BlockscaleGemmView& v, float* out, int threads) {
  const auto rows = all_rows(v.M);
  blockscale_rows(v, rows, out, threads);
}

void ref_a8w8_blockscale_rows(const BlockscaleGemmView& v, std::span<const int64_t> rows, float* out, int threads) {
  for (int64_t r : rows)
    if (r < 0 || r >= v.M) throw Error(fmt::format("blockscale reference: row {} outside [0, {})", r, v.M));
  blockscale_rows(v, rows, out, threads);
}

void ref_a8w8_blockscale_preshuffled(int M, int N, int K, Fp8Format fmt, const uint8_t* xq, const float* x_scale_t,
                                     const uint8_t* wq_shuffled, const float* w_scale, float* out, int threads) {
  BlockscaleGemmView v;
  v.M = M;
  v.N = N;
  v.K = K;
  v.fmt = fmt;
  v.xq = xq;
  v.x_scale = x_scale_t;
  v.x_scale_transposed = true;
  v.wq = wq_shuffled;
  v.w_preshuffled = true;
  v.w_scale = w_scale;
  ref_a8w8_blockscale(v, out, threads);
}

void ref_a8w8_ptpc(const PtpcGemmView& v, float* out, int threads) {
  const auto rows = all_rows(v.M);
  ptpc_rows(v, rows, out, threads);
}

void ref_a8w8_ptpc_rows(const PtpcGemmView& v, std::span<const int64_t> rows, float* out, int threads) {
  for (int64_t r : rows)
    if (r < 0 || r >= v.M) throw Error(fmt::format("a8w8 reference: row {} outside [0, {})", r, v.M));
  ptpc_rows(v, rows, out, threads);
}

std::vector<int64_t> sample_rows(int64_t m, int64_t count, uint64_t seed) {
  if (count >= m) return all_rows(m);
  if (count <= 0) return {};
  // Stratified: one row from each of `count` equal strata, first and last strata pinned to their
  // ends (edge rows are where tiling bugs live).
  RandomStream s(seed, 0x5a3b1e);
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    const int64_t lo = m * i / count, hi = m * (i + 1) / count;
    int64_t r = lo + static_cast<int64_t>(s.below(static_cast<uint64_t>(i), static_cast<uint32_t>(hi - lo)));
    if (i == 0) r = 0;
    if (i == count - 1) r = m - 1;
    out.push_back(r);
  }
  return out;
}

}  // namespace cktune
