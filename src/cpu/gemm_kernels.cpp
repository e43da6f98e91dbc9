#include "cktune/cpu/gemm_kernels.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/numerics/bf16.hpp"
#include "cktune/numerics/parallel.hpp"
#include "cktune/numerics/quant.hpp"

namespace cktune {

std::string_view to_string(CpuGemmAlgo a) {
  return enum_text(kCpuGemmAlgoNames, a, "?");
}

std::string_view to_string(PlantedBug b) {
  return enum_text(kPlantedBugNames, b, "?");
}

std::optional<PlantedBug> planted_bug_from_string(std::string_view s) {
  return enum_from_text(kPlantedBugNames, s);
}

namespace {

constexpr int kMaxTileM = 256, kMaxTileN = 512;

// Operand access shared by all algorithms and both scale schemes (128x128 blocks or per row/channel),
// with the planted bugs' hooks in one place.
struct GemmCtx {
  PlantedBug bug;
  std::array<float, 256> tab{};
  int64_t M, N, K, KB;
  const uint8_t* xq;
  const uint8_t* wq;
  bool w_preshuffled;
  const BlockscaleGemmView* block = nullptr;  // blockscale scales, or
  const float* x_row_scale = nullptr;         // per-token / per-channel scales
  const float* w_row_scale = nullptr;
  int64_t corrupt_row, first_unwritten;

  GemmCtx(PlantedBug b, int64_t m, int64_t n, int64_t k, const uint8_t* x, const uint8_t* w, bool shuffled)
      : bug(b), M(m), N(n), K(k), KB(ceil_div(k, kScaleBlock)), xq(x), wq(w), w_preshuffled(shuffled),
        corrupt_row(b == PlantedBug::CorruptRow ? m / 2 : -1),
        first_unwritten(b == PlantedBug::PartialWrite ? m - std::max<int64_t>(1, m / 8) : m) {}
  static GemmCtx of(const BlockscaleGemmView& v, PlantedBug b) {
    GemmCtx c(b, v.M, v.N, v.K, v.xq, v.wq, v.w_preshuffled);
    const auto t = fp8_table(v.fmt);
    std::copy(t.begin(), t.end(), c.tab.begin());
    c.block = &v;
    return c;
  }
  static GemmCtx of(const PtpcGemmView& v, PlantedBug b) {
    GemmCtx c(b, v.M, v.N, v.K, v.xq, v.wq, v.w_preshuffled);
    for (int i = 0; i < 256; ++i) c.tab[static_cast<size_t>(i)] = decode_q(static_cast<uint8_t>(i), v.dtype);
    c.x_row_scale = v.x_scale;
    c.w_row_scale = v.w_scale;
    return c;
  }

  int64_t kb_end() const { return bug == PlantedBug::MissingKTail ? KB - 1 : KB; }
  float xs(int64_t m, int64_t kb) const { return block ? block->xs(m, kb) : x_row_scale[m]; }
  float ws(int64_t n, int64_t kb) const { return block ? block->ws(n, kb) : w_row_scale[n]; }
  float x(int64_t m, int64_t k) const {
    if (m != corrupt_row) return tab[xq[m * K + k]];
    // Off by one: the load runs one element ahead (into the next row, or past the end as zero).
    const int64_t i = m * K + k + 1;
    return i < M * K ? tab[xq[i]] : 0.0f;
  }
  float w(int64_t n, int64_t k) const { return tab[w_preshuffled ? wq[preshuffled_index(n, k, N, K)] : wq[n * K + k]]; }
  void store(uint16_t* out, int64_t m, int64_t n, float value) const {
    if (m < first_unwritten) out[m * N + n] = float_to_bf16(value);
  }
};

void run_naive(const GemmCtx& c, int threads, uint16_t* out) {
  parallel_for(c.M, threads, [&](int64_t m0, int64_t m1) {
    for (int64_t m = m0; m < m1; ++m)
      for (int64_t n = 0; n < c.N; ++n) {
        float acc = 0.0f;
        for (int64_t kb = 0; kb < c.kb_end(); ++kb) {
          const int64_t k0 = kb * kScaleBlock, k1 = std::min<int64_t>(k0 + kScaleBlock, c.K);
          float s = 0.0f;
          for (int64_t k = k0; k < k1; ++k) s += c.x(m, k) * c.w(n, k);
          acc += s * (c.xs(m, kb) * c.ws(n, kb));
        }
        c.store(out, m, n, acc);
      }
  });
}

// Per-thread scratch for one tile.
struct TileScratch {
  std::vector<float> xbuf, wpanel, blk;
  TileScratch(int tm, int tn)
      : xbuf(static_cast<size_t>(tm) * kScaleBlock), wpanel(static_cast<size_t>(tn) * kScaleBlock), blk(static_cast<size_t>(tn)) {}
};

// Operands decoded once for the whole call (pack = true). W is stored in panels of tile_n columns:
// panel p, K block kb holds a [128][tile_n] slab (row k = the tile_n weights of column k), zero-padded.
struct Packed {
  std::vector<float> x;  // [M, K]
  std::vector<float> w;  // [ceil(N/tile_n), KB, 128, tile_n]
  int64_t tile_n = 0;
  const float* panel(int64_t n0, int64_t kb, int64_t kbs) const {
    return w.data() + ((n0 / tile_n) * kbs + kb) * kScaleBlock * tile_n;
  }
};

Packed pack_operands(const GemmCtx& c, int64_t tile_n, int threads) {
  Packed pk;
  pk.tile_n = tile_n;
  pk.x.resize(static_cast<size_t>(c.M * c.K));
  parallel_for(c.M, threads, [&](int64_t lo, int64_t hi) {
    for (int64_t m = lo; m < hi; ++m)
      for (int64_t k = 0; k < c.K; ++k) pk.x[static_cast<size_t>(m * c.K + k)] = c.x(m, k);
  });
  const int64_t panels = ceil_div(c.N, tile_n);
  pk.w.assign(static_cast<size_t>(panels * c.KB * kScaleBlock * tile_n), 0.0f);
  parallel_for(panels, threads, [&](int64_t lo, int64_t hi) {
    for (int64_t p = lo; p < hi; ++p)
      for (int64_t j = 0; j < std::min(tile_n, c.N - p * tile_n); ++j)
        for (int64_t k = 0; k < c.K; ++k)
          pk.w[static_cast<size_t>(((p * c.KB + k / kScaleBlock) * kScaleBlock + k % kScaleBlock) * tile_n + j)] =
              c.w(p * tile_n + j, k);
  });
  return pk;
}

// acc[tm x tn] += sum over K blocks [kb0, kb1) of the tile at (m0, n0). Operands come from the
// packed copies when given, else are decoded into the scratch buffers per K block.
void tile_accumulate(const GemmCtx& c, int64_t m0, int64_t tm, int64_t n0, int64_t tn, int64_t kb0, int64_t kb1,
                     TileScratch& s, const Packed* pk, float* acc) {
  for (int64_t kb = kb0; kb < kb1; ++kb) {
    const int64_t k0 = kb * kScaleBlock, len = std::min<int64_t>(kScaleBlock, c.K - k0);
    const float* xrows;
    int64_t xstride;
    const float* wpanel;
    int64_t wstride;
    if (pk != nullptr) {
      xrows = pk->x.data() + m0 * c.K + k0;
      xstride = c.K;
      wpanel = pk->panel(n0, kb, c.KB);
      wstride = pk->tile_n;
    } else {
      for (int64_t i = 0; i < tm; ++i)
        for (int64_t k = 0; k < len; ++k) s.xbuf[static_cast<size_t>(i * kScaleBlock + k)] = c.x(m0 + i, k0 + k);
      // Transposed panel: row k holds the tn weights of column k, so the inner loop runs over n.
      for (int64_t j = 0; j < tn; ++j)
        for (int64_t k = 0; k < len; ++k) s.wpanel[static_cast<size_t>(k * tn + j)] = c.w(n0 + j, k0 + k);
      xrows = s.xbuf.data();
      xstride = kScaleBlock;
      wpanel = s.wpanel.data();
      wstride = tn;
    }
    for (int64_t i = 0; i < tm; ++i) {
      float* blk = s.blk.data();
      std::fill_n(blk, tn, 0.0f);
      const float* xr = xrows + i * xstride;
      for (int64_t k = 0; k < len; ++k) {
        const float xv = xr[k];
        const float* wr = wpanel + k * wstride;
        for (int64_t j = 0; j < tn; ++j) blk[j] += xv * wr[j];
      }
      const float xsv = c.xs(m0 + i, kb);
      float* ar = acc + i * tn;
      for (int64_t j = 0; j < tn; ++j) ar[j] += blk[j] * (xsv * c.ws(n0 + j, kb));
    }
  }
}

void run_tiled(const GemmCtx& c, const CpuBlockscaleParams& p, uint16_t* out) {
  const int64_t mt = ceil_div(c.M, p.tile_m), nt = ceil_div(c.N, p.tile_n);
  const Packed pk = p.pack ? pack_operands(c, p.tile_n, p.threads) : Packed{};
  parallel_for(mt * nt, p.threads, [&](int64_t lo, int64_t hi) {
    TileScratch s(p.tile_m, p.tile_n);
    std::vector<float> acc(static_cast<size_t>(p.tile_m) * p.tile_n);
    for (int64_t t = lo; t < hi; ++t) {
      const int64_t m0 = (t / nt) * p.tile_m, n0 = (t % nt) * p.tile_n;
      const int64_t tm = std::min<int64_t>(p.tile_m, c.M - m0), tn = std::min<int64_t>(p.tile_n, c.N - n0);
      std::fill(acc.begin(), acc.end(), 0.0f);
      tile_accumulate(c, m0, tm, n0, tn, 0, c.kb_end(), s, p.pack ? &pk : nullptr, acc.data());
      for (int64_t i = 0; i < tm; ++i)
        for (int64_t j = 0; j < tn; ++j) c.store(out, m0 + i, n0 + j, acc[static_cast<size_t>(i * tn + j)]);
    }
  });
}

void run_split_k(const GemmCtx& c, const CpuBlockscaleParams& p, uint16_t* out) {
  const int64_t mt = ceil_div(c.M, p.tile_m), nt = ceil_div(c.N, p.tile_n), splits = p.split_k;
  const int64_t kb_total = c.kb_end();
  const Packed pk = p.pack ? pack_operands(c, p.tile_n, p.threads) : Packed{};
  std::vector<float> partial(static_cast<size_t>(splits * c.M * c.N));
  parallel_for(splits * mt * nt, p.threads, [&](int64_t lo, int64_t hi) {
    TileScratch s(p.tile_m, p.tile_n);
    std::vector<float> acc(static_cast<size_t>(p.tile_m) * p.tile_n);
    for (int64_t t = lo; t < hi; ++t) {
      const int64_t r = t / (mt * nt), tile = t % (mt * nt);
      const int64_t m0 = (tile / nt) * p.tile_m, n0 = (tile % nt) * p.tile_n;
      const int64_t tm = std::min<int64_t>(p.tile_m, c.M - m0), tn = std::min<int64_t>(p.tile_n, c.N - n0);
      std::fill(acc.begin(), acc.end(), 0.0f);
      tile_accumulate(c, m0, tm, n0, tn, kb_total * r / splits, kb_total * (r + 1) / splits, s, p.pack ? &pk : nullptr,
                      acc.data());
      float* dst = partial.data() + r * c.M * c.N;
      for (int64_t i = 0; i < tm; ++i)
        for (int64_t j = 0; j < tn; ++j) dst[(m0 + i) * c.N + n0 + j] = acc[static_cast<size_t>(i * tn + j)];
    }
  });
  // Ordered reduction: ranges summed in index order, so the result does not depend on threads.
  parallel_for(c.M, p.threads, [&](int64_t m0, int64_t m1) {
    for (int64_t m = m0; m < m1; ++m)
      for (int64_t n = 0; n < c.N; ++n) {
        float v = 0.0f;
        for (int64_t r = 0; r < splits; ++r) v += partial[static_cast<size_t>((r * c.M + m) * c.N + n)];
        c.store(out, m, n, v);
      }
  });
}

// The Blocked micro-kernel: blk[R x 8] = sum over k < len of x[r][k] * w[k][0..8), the R rows of X
// (stride xs) against 8 columns of a packed W panel (row k at w + k * ws). Accumulators stay in
// registers for the whole K block; each sum runs over k in ascending order from zero, as Tiled's.
using F4 = float __attribute__((vector_size(16)));

template <int R>
void micro_rx8(const float* x, int64_t xs, const float* w, int64_t ws, int64_t len, float* blk) {
  F4 a[R][2];
  for (int r = 0; r < R; ++r) a[r][0] = a[r][1] = F4{0.0f, 0.0f, 0.0f, 0.0f};
  for (int64_t k = 0; k < len; ++k) {
    F4 w0, w1;
    std::memcpy(&w0, w + k * ws, sizeof w0);
    std::memcpy(&w1, w + k * ws + 4, sizeof w1);
    for (int r = 0; r < R; ++r) {
      const float v = x[r * xs + k];
      const F4 b = {v, v, v, v};
      a[r][0] += b * w0;
      a[r][1] += b * w1;
    }
  }
  for (int r = 0; r < R; ++r) {
    std::memcpy(blk + r * 8, &a[r][0], sizeof(F4));
    std::memcpy(blk + r * 8 + 4, &a[r][1], sizeof(F4));
  }
}

void run_blocked(const GemmCtx& c, const CpuBlockscaleParams& p, uint16_t* out) {
  const int64_t mt = ceil_div(c.M, p.tile_m), nt = ceil_div(c.N, p.tile_n);
  parallel_for(mt * nt, p.threads, [&](int64_t lo, int64_t hi) {
    TileScratch s(p.tile_m, p.tile_n);
    std::vector<float> acc(static_cast<size_t>(p.tile_m) * p.tile_n);
    float blk[4 * 8];
    for (int64_t t = lo; t < hi; ++t) {
      const int64_t m0 = (t / nt) * p.tile_m, n0 = (t % nt) * p.tile_n;
      const int64_t tm = std::min<int64_t>(p.tile_m, c.M - m0), tn = std::min<int64_t>(p.tile_n, c.N - n0);
      const int64_t tn8 = ceil_div(tn, 8) * 8;  // panel width: whole 8-column groups, zero-padded
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int64_t kb = 0; kb < c.kb_end(); ++kb) {
        const int64_t k0 = kb * kScaleBlock, len = std::min<int64_t>(kScaleBlock, c.K - k0);
        // Decoded per tile and K block exactly as Tiled does (X rows, W transposed: row k = tn weights).
        for (int64_t i = 0; i < tm; ++i)
          for (int64_t k = 0; k < len; ++k) s.xbuf[static_cast<size_t>(i * kScaleBlock + k)] = c.x(m0 + i, k0 + k);
        for (int64_t j = 0; j < tn8; ++j)
          for (int64_t k = 0; k < len; ++k)
            s.wpanel[static_cast<size_t>(k * tn8 + j)] = j < tn ? c.w(n0 + j, k0 + k) : 0.0f;
        for (int64_t i = 0; i < tm; i += 4) {
          const int64_t rows = std::min<int64_t>(4, tm - i);
          const float* xr = s.xbuf.data() + i * kScaleBlock;
          for (int64_t j = 0; j < tn; j += 8) {
            const float* wp = s.wpanel.data() + j;
            switch (rows) {
              case 4: micro_rx8<4>(xr, kScaleBlock, wp, tn8, len, blk); break;
              case 3: micro_rx8<3>(xr, kScaleBlock, wp, tn8, len, blk); break;
              case 2: micro_rx8<2>(xr, kScaleBlock, wp, tn8, len, blk); break;
              default: micro_rx8<1>(xr, kScaleBlock, wp, tn8, len, blk); break;
            }
            const int64_t cols = std::min<int64_t>(8, tn - j);
            for (int64_t r = 0; r < rows; ++r) {
              const float xsv = c.xs(m0 + i + r, kb);
              float* ar = acc.data() + (i + r) * tn + j;
              for (int64_t q = 0; q < cols; ++q) ar[q] += blk[r * 8 + q] * (xsv * c.ws(n0 + j + q, kb));
            }
          }
        }
      }
      for (int64_t i = 0; i < tm; ++i)
        for (int64_t j = 0; j < tn; ++j) c.store(out, m0 + i, n0 + j, acc[static_cast<size_t>(i * tn + j)]);
    }
  });
}

}  // namespace

std::string kernel_name(const CpuBlockscaleParams& p) {
  std::string name;
  switch (p.algo) {
    case CpuGemmAlgo::Naive: name = fmt::format("cpu_bs_naive_t{}", p.threads); break;
    case CpuGemmAlgo::Tiled:
      name = fmt::format("cpu_bs_tiled_m{}n{}{}_t{}", p.tile_m, p.tile_n, p.pack ? "_pk" : "", p.threads);
      break;
    case CpuGemmAlgo::SplitK:
      name = fmt::format("cpu_bs_splitk{}_m{}n{}{}_t{}", p.split_k, p.tile_m, p.tile_n, p.pack ? "_pk" : "", p.threads);
      break;
    case CpuGemmAlgo::Blocked: name = fmt::format("cpu_bs_blocked_m{}n{}_t{}", p.tile_m, p.tile_n, p.threads); break;
  }
  if (p.bug != PlantedBug::None) name += fmt::format("+bug_{}", to_string(p.bug));
  return name;
}

bool can_run(const CpuBlockscaleParams& p, int M, int N, int K, bool w_preshuffled) {
  if (M <= 0 || N <= 0 || K <= 0 || p.threads < 0) return false;
  if (w_preshuffled && !can_preshuffle(N, K)) return false;
  if (p.algo == CpuGemmAlgo::Naive) return true;
  if (p.tile_m <= 0 || p.tile_m > kMaxTileM || p.tile_n <= 0 || p.tile_n > kMaxTileN) return false;
  if (p.algo == CpuGemmAlgo::Blocked && p.tile_n % 8 != 0) return false;
  if (p.pack && (static_cast<int64_t>(M) + ceil_div(N, p.tile_n) * p.tile_n) * ceil_div(K, kScaleBlock) * kScaleBlock * 4 >
                    (int64_t{2} << 30))
    return false;
  if (p.algo == CpuGemmAlgo::SplitK) return p.split_k >= 2 && p.split_k <= ceil_div(K, kScaleBlock);
  return true;
}

namespace {
void run(const CpuBlockscaleParams& p, const GemmCtx& c, uint16_t* out) {
  switch (p.algo) {
    case CpuGemmAlgo::Naive: run_naive(c, p.threads, out); break;
    case CpuGemmAlgo::Tiled: run_tiled(c, p, out); break;
    case CpuGemmAlgo::SplitK: run_split_k(c, p, out); break;
    case CpuGemmAlgo::Blocked: run_blocked(c, p, out); break;
  }
}
}  // namespace



void cpu_a8w8_blockscale(const CpuBlockscaleParams& p, const BlockscaleGemmView& v, uint16_t* out) {
  if (!can_run(p, v.M, v.N, v.K, v.w_preshuffled))
    throw Error(fmt::format("{} cannot run M={} N={} K={}{}", kernel_name(p), v.M, v.N, v.K, v.w_preshuffled ? " (preshuffled)" : ""));
  run(p, GemmCtx::of(v, p.bug), out);
}

std::string ptpc_kernel_name(const CpuBlockscaleParams& p) {
  std::string n = kernel_name(p);
  return "cpu_a8w8" + n.substr(6);  // "cpu_bs_..." -> "cpu_a8w8_..."
}

void cpu_a8w8_ptpc(const CpuBlockscaleParams& p, const PtpcGemmView& v, uint16_t* out) {
  if (!can_run(p, v.M, v.N, v.K, v.w_preshuffled))
    throw Error(fmt::format("{} cannot run M={} N={} K={}{}", ptpc_kernel_name(p), v.M, v.N, v.K, v.w_preshuffled ? " (preshuffled)" : ""));
  run(p, GemmCtx::of(v, p.bug), out);
}

std::vector<CpuBlockscaleParams> cpu_blockscale_candidates() {
  using A = CpuGemmAlgo;
  return {
      {A::Naive, 0, 0, 1, 1},          {A::Naive, 0, 0, 1, 0},
      {A::Tiled, 16, 64, 1, 1},        {A::Tiled, 16, 64, 1, 2},      {A::Tiled, 16, 64, 1, 0},
      {A::Tiled, 64, 128, 1, 0},       {A::Tiled, 4, 256, 1, 0},      {A::Tiled, 32, 32, 1, 0},
      {A::SplitK, 16, 64, 2, 0},       {A::SplitK, 8, 128, 4, 0},     {A::SplitK, 4, 256, 8, 0},
      {A::Tiled, 64, 128, 1, 0, PlantedBug::None, true},  {A::Tiled, 16, 64, 1, 1, PlantedBug::None, true},
      {A::SplitK, 16, 64, 4, 0, PlantedBug::None, true},
      {A::Blocked, 32, 64, 1, 0},      {A::Blocked, 64, 128, 1, 0},
  };
}

}  // namespace cktune
