#include "cktune/cpu/moe_kernels.hpp"

#include <algorithm>
#include <bit>
#include <vector>

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/numerics/bf16.hpp"
#include "cktune/numerics/parallel.hpp"
#include "cktune/verify/check.hpp"

namespace cktune {

std::string_view to_string(CpuMoeAlgo a) {
  return enum_text(kCpuMoeAlgoNames, a, "?");
}

std::string kernel_name(const CpuMoeParams& p) {
  std::string name = p.algo == CpuMoeAlgo::PerToken ? fmt::format("cpu_moe_per_token_t{}", p.threads)
                                                    : fmt::format("cpu_moe_grouped_bm{}_t{}", p.block_m, p.threads);
  if (p.bug != PlantedBug::None) name += fmt::format("+bug_{}", to_string(p.bug));
  return name;
}

bool can_run(const CpuMoeParams& p, const MoeInputs& in, const MoeParams& mp) {
  if (p.threads < 0 || mp.quant != in.quant) return false;
  if (in.quant != QuantType::No && in.quant != QuantType::Per1x128) return false;
  if (p.algo == CpuMoeAlgo::ExpertGrouped && (p.block_m <= 0 || p.block_m > 256)) return false;
  return in.tokens > 0 && in.model_dim > 0 && in.inter_dim > 0 && in.topk > 0;
}

namespace {

// Operand decoding and bug hooks shared by both algorithms.
struct MoeCtx {
  const MoeInputs& in;
  const MoeParams& mp;
  PlantedBug bug;
  std::span<const float, 256> tab;
  int64_t T, D, I, topk;

  MoeCtx(const MoeInputs& i, const MoeParams& m, PlantedBug b)
      : in(i), mp(m), bug(b), tab(fp8_table(i.fmt)), T(i.tokens), D(i.model_dim), I(i.inter_dim), topk(i.topk) {}

  int64_t first_unwritten_token() const { return bug == PlantedBug::PartialWrite ? T - std::max<int64_t>(1, T / 8) : T; }
  int64_t corrupt_token() const { return bug == PlantedBug::CorruptRow ? T / 2 : -1; }
  // Number of 128-blocks a reduction of length n visits (one fewer with the planted bug).
  int64_t blocks(int64_t n) const { return ceil_div(n, kScaleBlock) - (bug == PlantedBug::MissingKTail ? 1 : 0); }

  void x_row(int64_t t, float* out) const {
    if (in.quantized()) {
      for (int64_t k = 0; k < D; ++k) out[k] = tab[in.xq[static_cast<size_t>(t * D + k)]];
    } else {
      for (int64_t k = 0; k < D; ++k) out[k] = bf16_to_float(in.x[static_cast<size_t>(t * D + k)]);
    }
  }
  void w1_row(int64_t e, int64_t r, float* out) const {
    const size_t base = static_cast<size_t>((e * 2 * I + r) * D);
    if (in.quantized()) {
      for (int64_t k = 0; k < D; ++k) out[k] = tab[in.w1q[base + static_cast<size_t>(k)]];
    } else {
      for (int64_t k = 0; k < D; ++k) out[k] = bf16_to_float(in.w1[base + static_cast<size_t>(k)]);
    }
  }
  void w2_row(int64_t e, int64_t n, float* out) const {
    const size_t base = static_cast<size_t>((e * D + n) * I);
    if (in.quantized()) {
      for (int64_t k = 0; k < I; ++k) out[k] = tab[in.w2q[base + static_cast<size_t>(k)]];
    } else {
      for (int64_t k = 0; k < I; ++k) out[k] = bf16_to_float(in.w2[base + static_cast<size_t>(k)]);
    }
  }
  // Stage-2 activation row of pair (t, slot), codes decoded (scales applied per block later).
  void a_row(const MoeStage1Out& s1, int64_t t, int64_t slot, float* out) const {
    const int64_t row = t * topk + slot;
    const int64_t shift = t == corrupt_token() ? 1 : 0;  // the planted off-by-one load
    for (int64_t k = 0; k < I; ++k) {
      const int64_t kk = k + shift;
      if (kk >= I) {
        out[k] = 0.0f;
      } else {
        out[k] = in.quantized() ? tab[s1.aq[static_cast<size_t>(row * I + kk)]] : s1.a[static_cast<size_t>(row * I + kk)];
      }
    }
  }
  float x_scale(int64_t t, int64_t kb) const {
    return in.quantized() ? in.x_scale[static_cast<size_t>(t * ceil_div(D, kScaleBlock) + kb)] : 1.0f;
  }
  float w1_scale(int64_t e, int64_t r, int64_t kb) const {
    if (!in.quantized()) return 1.0f;
    const int64_t sr = ceil_div(2 * I, kScaleBlock), sc = ceil_div(D, kScaleBlock);
    return in.w1_scale[static_cast<size_t>((e * sr + r / kScaleBlock) * sc + kb)];
  }
  float w2_scale(int64_t e, int64_t n, int64_t kb) const {
    if (!in.quantized()) return 1.0f;
    const int64_t sr = ceil_div(D, kScaleBlock), sc = ceil_div(I, kScaleBlock);
    return in.w2_scale[static_cast<size_t>((e * sr + n / kScaleBlock) * sc + kb)];
  }
  float a_scale(const MoeStage1Out& s1, int64_t t, int64_t slot, int64_t kb) const {
    return in.quantized() ? s1.a_scale[static_cast<size_t>((t * topk + slot) * ceil_div(I, kScaleBlock) + kb)] : 1.0f;
  }
  // Stage-1 epilogue: a = act(gate) * up (* routed weight), rounded to bf16 as the kernels store it.
  void finish_stage1(const float* h, float weight, float* a) const {
    for (int64_t c = 0; c < I; ++c) {
      const float g = h[c], u = h[I + c];
      const float act = static_cast<float>(apply_activation(mp.act, g));
      a[c] = round_to_bf16(act * u * weight);
    }
  }
};

template <class AS, class WS>
float scaled_dot(const float* a, const float* b, int64_t n, int64_t blocks, AS as, WS ws) {
  float acc = 0.0f;
  for (int64_t kb = 0; kb < blocks; ++kb) {
    const int64_t k0 = kb * kScaleBlock, k1 = std::min<int64_t>(k0 + kScaleBlock, n);
    float s = 0.0f;
    for (int64_t k = k0; k < k1; ++k) s += a[k] * b[k];
    acc += s * (as(kb) * ws(kb));
  }
  return acc;
}

void prepare_stage1(const MoeInputs& in, MoeStage1Out& s1) {
  const size_t n = static_cast<size_t>(in.tokens) * static_cast<size_t>(in.topk) * static_cast<size_t>(in.inter_dim);
  s1.tokens = in.tokens;
  s1.topk = in.topk;
  s1.inter_dim = in.inter_dim;
  if (s1.a.size() != n) s1.a.assign(n, std::bit_cast<float>(kPoisonF32Bits));
}

void stage1_per_token(const MoeCtx& c, int threads, MoeStage1Out& s1) {
  const int64_t stop = c.first_unwritten_token();
  parallel_for(c.T, threads, [&](int64_t lo, int64_t hi) {
    std::vector<float> xr(static_cast<size_t>(c.D)), wr(static_cast<size_t>(c.D)), h(static_cast<size_t>(2 * c.I));
    for (int64_t t = lo; t < std::min(hi, stop); ++t) {
      c.x_row(t, xr.data());
      for (int64_t j = 0; j < c.topk; ++j) {
        const int64_t e = c.in.topk_ids[static_cast<size_t>(t * c.topk + j)];
        for (int64_t r = 0; r < 2 * c.I; ++r) {
          c.w1_row(e, r, wr.data());
          h[static_cast<size_t>(r)] = scaled_dot(xr.data(), wr.data(), c.D, c.blocks(c.D), [&](int64_t kb) { return c.x_scale(t, kb); },
                                                 [&](int64_t kb) { return c.w1_scale(e, r, kb); });
        }
        const float w = c.mp.doweight_stage1 ? c.in.topk_weights[static_cast<size_t>(t * c.topk + j)] : 1.0f;
        c.finish_stage1(h.data(), w, s1.a.data() + (t * c.topk + j) * c.I);
      }
    }
  });
}

void stage2_per_token(const MoeCtx& c, int threads, const MoeStage1Out& s1, uint16_t* out) {
  const int64_t stop = c.first_unwritten_token();
  parallel_for(c.T, threads, [&](int64_t lo, int64_t hi) {
    std::vector<float> ar(static_cast<size_t>(c.I)), wr(static_cast<size_t>(c.I)), acc(static_cast<size_t>(c.D));
    for (int64_t t = lo; t < std::min(hi, stop); ++t) {
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int64_t j = 0; j < c.topk; ++j) {
        const int64_t e = c.in.topk_ids[static_cast<size_t>(t * c.topk + j)];
        c.a_row(s1, t, j, ar.data());
        const float w = c.mp.doweight_stage1 ? 1.0f : c.in.topk_weights[static_cast<size_t>(t * c.topk + j)];
        for (int64_t n = 0; n < c.D; ++n) {
          c.w2_row(e, n, wr.data());
          acc[static_cast<size_t>(n)] += w * scaled_dot(ar.data(), wr.data(), c.I, c.blocks(c.I),
                                                        [&](int64_t kb) { return c.a_scale(s1, t, j, kb); },
                                                        [&](int64_t kb) { return c.w2_scale(e, n, kb); });
        }
      }
      for (int64_t n = 0; n < c.D; ++n) out[t * c.D + n] = float_to_bf16(acc[static_cast<size_t>(n)]);
    }
  });
}

// Valid entries of sorted block b: token, slot and routed weight as moe_sorting placed them.
struct SortedPair {
  int64_t t, j;
  float weight;
};
std::vector<SortedPair> block_pairs(const MoeSorting& s, int64_t b) {
  std::vector<SortedPair> pairs;
  for (int64_t i = b * s.block_m; i < (b + 1) * s.block_m; ++i) {
    const int32_t id = s.sorted_ids[static_cast<size_t>(i)];
    if (id == s.pad_value()) continue;
    pairs.push_back({moe_token_of(id), moe_slot_of(id), s.sorted_weights[static_cast<size_t>(i)]});
  }
  return pairs;
}

void stage1_grouped(const MoeCtx& c, const MoeSorting& s, int threads, MoeStage1Out& s1) {
  const int64_t stop = c.first_unwritten_token();
  parallel_for(s.num_blocks(), threads, [&](int64_t lo, int64_t hi) {
    std::vector<float> xs(static_cast<size_t>(s.block_m * c.D)), wr(static_cast<size_t>(c.D));
    std::vector<float> h(static_cast<size_t>(s.block_m * 2 * c.I));
    for (int64_t b = lo; b < hi; ++b) {
      const int64_t e = s.sorted_expert_ids[static_cast<size_t>(b)];
      const auto pairs = block_pairs(s, b);
      for (size_t i = 0; i < pairs.size(); ++i) c.x_row(pairs[i].t, xs.data() + static_cast<int64_t>(i) * c.D);
      for (int64_t r = 0; r < 2 * c.I; ++r) {
        c.w1_row(e, r, wr.data());  // decoded once, used by every row of the block
        for (size_t i = 0; i < pairs.size(); ++i) {
          const int64_t t = pairs[i].t;
          h[i * static_cast<size_t>(2 * c.I) + static_cast<size_t>(r)] =
              scaled_dot(xs.data() + static_cast<int64_t>(i) * c.D, wr.data(), c.D, c.blocks(c.D),
                         [&](int64_t kb) { return c.x_scale(t, kb); }, [&](int64_t kb) { return c.w1_scale(e, r, kb); });
        }
      }
      for (size_t i = 0; i < pairs.size(); ++i) {
        const auto [t, j, rw] = pairs[i];
        if (t >= stop) continue;
        const float w = c.mp.doweight_stage1 ? rw : 1.0f;
        c.finish_stage1(h.data() + i * static_cast<size_t>(2 * c.I), w, s1.a.data() + (t * c.topk + j) * c.I);
      }
    }
  });
}

void stage2_grouped(const MoeCtx& c, const MoeSorting& s, int threads, const MoeStage1Out& s1, uint16_t* out) {
  // Per-pair weighted results, then a per-token reduction in slot order: no two threads add into
  // one row, and the sum order does not depend on the thread count.
  std::vector<float> y(static_cast<size_t>(c.T * c.topk * c.D), 0.0f);
  parallel_for(s.num_blocks(), threads, [&](int64_t lo, int64_t hi) {
    std::vector<float> as(static_cast<size_t>(s.block_m * c.I)), wr(static_cast<size_t>(c.I));
    for (int64_t b = lo; b < hi; ++b) {
      const int64_t e = s.sorted_expert_ids[static_cast<size_t>(b)];
      const auto pairs = block_pairs(s, b);
      for (size_t i = 0; i < pairs.size(); ++i) c.a_row(s1, pairs[i].t, pairs[i].j, as.data() + static_cast<int64_t>(i) * c.I);
      for (int64_t n = 0; n < c.D; ++n) {
        c.w2_row(e, n, wr.data());
        for (size_t i = 0; i < pairs.size(); ++i) {
          const auto [t, j, rw] = pairs[i];
          const float w = c.mp.doweight_stage1 ? 1.0f : rw;
          y[static_cast<size_t>((t * c.topk + j) * c.D + n)] =
              w * scaled_dot(as.data() + static_cast<int64_t>(i) * c.I, wr.data(), c.I, c.blocks(c.I),
                         [&](int64_t kb) { return c.a_scale(s1, t, j, kb); }, [&](int64_t kb) { return c.w2_scale(e, n, kb); });
        }
      }
    }
  });
  const int64_t stop = c.first_unwritten_token();
  parallel_for(stop, threads, [&](int64_t lo, int64_t hi) {
    for (int64_t t = lo; t < hi; ++t)
      for (int64_t n = 0; n < c.D; ++n) {
        float acc = 0.0f;
        for (int64_t j = 0; j < c.topk; ++j) acc += y[static_cast<size_t>((t * c.topk + j) * c.D + n)];
        out[t * c.D + n] = float_to_bf16(acc);
      }
  });
}

void require_can_run(const CpuMoeParams& p, const MoeInputs& in, const MoeParams& mp) {
  if (!can_run(p, in, mp))
    throw Error(fmt::format("{} cannot run this MoE problem (quant {} / params {})", kernel_name(p), to_string(in.quant),
                            to_string(mp.quant)));
}

MoeSorting sort_for(const CpuMoeParams& p, const MoeInputs& in) {
  return moe_sorting(in.topk_ids, in.topk_weights, in.tokens, in.topk, in.experts, p.block_m);
}

}  // namespace

void cpu_moe_stage1(const CpuMoeParams& p, const MoeInputs& in, const MoeParams& mp, MoeStage1Out& s1) {
  require_can_run(p, in, mp);
  prepare_stage1(in, s1);
  const MoeCtx c(in, mp, p.bug);
  if (p.algo == CpuMoeAlgo::PerToken) {
    stage1_per_token(c, p.threads, s1);
  } else {
    stage1_grouped(c, sort_for(p, in), p.threads, s1);
  }
  requantize_stage1(s1, in, p.threads);
}

void cpu_moe_stage2(const CpuMoeParams& p, const MoeInputs& in, const MoeParams& mp, const MoeStage1Out& s1,
                    uint16_t* out) {
  require_can_run(p, in, mp);
  if (s1.tokens != in.tokens || s1.topk != in.topk || s1.inter_dim != in.inter_dim ||
      (in.quantized() && s1.aq.size() != s1.a.size()))
    throw Error(fmt::format("{}: stage-1 output does not match the inputs", kernel_name(p)));
  const MoeCtx c(in, mp, p.bug);
  if (p.algo == CpuMoeAlgo::PerToken) {
    stage2_per_token(c, p.threads, s1, out);
  } else {
    stage2_grouped(c, sort_for(p, in), p.threads, s1, out);
  }
}

void cpu_moe_2stages(const CpuMoeParams& p, const MoeInputs& in, const MoeParams& mp, uint16_t* out) {
  MoeStage1Out s1;
  cpu_moe_stage1(p, in, mp, s1);
  cpu_moe_stage2(p, in, mp, s1, out);
}

std::vector<CpuMoeParams> cpu_moe_candidates() {
  using A = CpuMoeAlgo;
  return {
      {A::PerToken, 0, 1},  {A::PerToken, 0, 0},       {A::ExpertGrouped, 16, 1},
      {A::ExpertGrouped, 32, 0}, {A::ExpertGrouped, 64, 0}, {A::ExpertGrouped, 128, 0},
  };
}

}  // namespace cktune
