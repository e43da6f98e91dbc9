#include "cktune/numerics/random.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>
#include <optional>
#include <mutex>
#include <memory>

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/numerics/bf16.hpp"
#include "cktune/numerics/parallel.hpp"

namespace cktune {

RandomStream::RandomStream(uint64_t seed, uint64_t stream) : key_(splitmix64(seed ^ splitmix64(stream + 1))) {}

float RandomStream::normal_like(uint64_t i) const {
  const uint64_t b = 4 * i;
  const float s = uniform(b) + uniform(b + 1) + uniform(b + 2) + uniform(b + 3);
  return (s - 2.0f) * 1.7320508075688772f;  // variance of the sum is 4/12
}

std::string_view to_string(InputDistribution d) {
  return enum_text(kInputDistributionNames, d, "?");
}

std::optional<InputDistribution> input_distribution_from_string(std::string_view s) {
  return enum_from_text(kInputDistributionNames, s);
}

namespace {

// Stream ids: one per tensor, so adding a tensor never shifts another's values.
enum : uint64_t {
  kStreamX = 1,
  kStreamW,
  kStreamXScale,
  kStreamWScale,
  kStreamW2,
  kStreamTopk,
  kStreamTopkWeight,
  kStreamExpertRank,  // MoeRouting::Skewed: the popularity order of the experts
  kStreamSkewDraw,    // MoeRouting::Skewed: the draws of each token
};

void require_positive(std::initializer_list<std::pair<const char*, int>> dims, const char* what) {
  for (const auto& [name, v] : dims)
    if (v <= 0) throw Error(fmt::format("{} inputs: {} must be positive, got {}", what, name, v));
}

// Fills out[i] = gen(i) in parallel; gen must be a pure function of i.
template <class T, class Gen>
void fill(std::vector<T>& out, size_t n, int threads, Gen gen) {
  out.resize(n);
  parallel_for(static_cast<int64_t>(n), threads, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) out[static_cast<size_t>(i)] = gen(static_cast<uint64_t>(i));
  });
}

}  // namespace

BlockscaleGemmInputs make_blockscale_inputs(int M, int N, int K, Fp8Format fmt, uint64_t seed, InputDistribution dist) {
  require_positive({{"M", M}, {"N", N}, {"K", K}}, "blockscale");
  BlockscaleGemmInputs in;
  in.M = M;
  in.N = N;
  in.K = K;
  in.fmt = fmt;
  const RandomStream xs(seed, kStreamX), ws(seed, kStreamW), xss(seed, kStreamXScale), wss(seed, kStreamWScale);
  const bool aiter = dist == InputDistribution::Aiter;
  // Values are encoded directly (no scale), as AITER's test casts rand/10 to fp8.
  const Fp8OfDraw encode([aiter](uint32_t u) { return aiter ? RandomStream::unit_of(u) / 10.0f : RandomStream::range_of(u, -0.1f, 0.1f); },
                         fmt);
  auto value = [&](const RandomStream& s, uint64_t i) { return encode(s.u24(i)); };
  auto scale = [&](const RandomStream& s, uint64_t i) { return aiter ? s.uniform(i) : s.uniform(i, 0.5f, 1.5f); };
  fill(in.xq, static_cast<size_t>(M) * K, 0, [&](uint64_t i) { return value(xs, i); });
  fill(in.wq, static_cast<size_t>(N) * K, 0, [&](uint64_t i) { return value(ws, i); });
  fill(in.x_scale, static_cast<size_t>(M * in.k_blocks()), 1, [&](uint64_t i) { return scale(xss, i); });
  fill(in.w_scale, static_cast<size_t>(in.n_blocks() * in.k_blocks()), 1, [&](uint64_t i) { return scale(wss, i); });
  return in;
}

PtpcGemmInputs make_ptpc_inputs(int M, int N, int K, QDtype dtype, uint64_t seed, InputDistribution dist) {
  require_positive({{"M", M}, {"N", N}, {"K", K}}, "a8w8");
  PtpcGemmInputs in;
  in.M = M;
  in.N = N;
  in.K = K;
  in.dtype = dtype;
  const RandomStream xs(seed, kStreamX), ws(seed, kStreamW);
  const bool aiter = dist == InputDistribution::Aiter;
  // AITER draws randn in bf16 and quantises per token / per channel.
  auto value = [&](const RandomStream& s, uint64_t i) {
    return round_to_bf16(aiter ? s.normal_like(i) : s.uniform(i, -0.1f, 0.1f));
  };
  std::vector<float> x, w;
  fill(x, static_cast<size_t>(M) * K, 0, [&](uint64_t i) { return value(xs, i); });
  fill(w, static_cast<size_t>(N) * K, 0, [&](uint64_t i) { return value(ws, i); });
  Quantized qx = quant_per_token(x.data(), M, K, dtype);
  Quantized qw = quant_per_channel(w.data(), N, K, dtype);
  in.xq = std::move(qx.q);
  in.x_scale = std::move(qx.scales);
  in.wq = std::move(qw.q);
  in.w_scale = std::move(qw.scales);
  return in;
}

std::string_view to_string(MoeRouting r) {
  return enum_text(kMoeRoutingNames, r, "?");
}

std::optional<MoeRouting> moe_routing_from_string(std::string_view s) {
  return enum_from_text(kMoeRoutingNames, s);
}

MoeRoutingTable make_moe_routing(int tokens, int experts, int topk, uint64_t seed, MoeRouting routing, int threads) {
  require_positive({{"tokens", tokens}, {"experts", experts}, {"topk", topk}}, "moe routing");
  if (topk > experts) throw Error(fmt::format("moe inputs: topk {} exceeds the number of experts {}", topk, experts));
  MoeRoutingTable out;
  out.tokens = tokens;
  out.experts = experts;
  out.topk = topk;
  const size_t T = static_cast<size_t>(tokens), E = static_cast<size_t>(experts);
  out.topk_ids.resize(T * static_cast<size_t>(topk));
  out.topk_weights.resize(T * static_cast<size_t>(topk));

  // Skewed: experts by popularity rank (a seeded permutation), and the cumulative Zipf weights of the
  // ranks, w(r) = (r + 1)^-1.25 = 1 / ((r + 1) * sqrt(sqrt(r + 1))), summed in rank order (doubles,
  // IEEE-exact operations: the same table on every machine).
  std::vector<int32_t> by_rank;
  std::vector<double> cumulative;
  if (routing == MoeRouting::Skewed) {
    by_rank.resize(E);
    std::iota(by_rank.begin(), by_rank.end(), 0);
    const RandomStream rank(seed, kStreamExpertRank);
    for (size_t i = E - 1; i > 0; --i)
      std::swap(by_rank[i], by_rank[rank.below(i, static_cast<uint32_t>(i + 1))]);
    cumulative.resize(E);
    double sum = 0.0;
    for (size_t r = 0; r < E; ++r) {
      const double x = static_cast<double>(r + 1);
      sum += 1.0 / (x * std::sqrt(std::sqrt(x)));
      cumulative[r] = sum;
    }
  }
  constexpr uint64_t kAttempts = 64;  // draws per slot before the fallback (the most popular rank left)

  // Distinct experts per token, positive weights sorted in descending order and normalised to sum 1
  // (what softmax + top-k + renormalise yields, without exp). Uniform: partial Fisher-Yates. Skewed:
  // draws by the cumulative weights, a rank already taken by the token is drawn again.
  const RandomStream rs(seed, kStreamTopk), ws(seed, kStreamTopkWeight), sk(seed, kStreamSkewDraw);
  parallel_for(tokens, threads, [&](int64_t lo, int64_t hi) {
    std::vector<int32_t> perm(routing == MoeRouting::Uniform ? E : static_cast<size_t>(topk));
    std::vector<size_t> taken(static_cast<size_t>(topk));
    std::vector<float> score(static_cast<size_t>(topk));
    for (int64_t t = lo; t < hi; ++t) {
      const uint64_t base = static_cast<uint64_t>(t) * static_cast<uint64_t>(topk);
      if (routing == MoeRouting::Uniform) {
        std::iota(perm.begin(), perm.end(), 0);
        for (int j = 0; j < topk; ++j) {
          const uint32_t pick = static_cast<uint32_t>(j) + rs.below(base + static_cast<uint64_t>(j), static_cast<uint32_t>(experts - j));
          std::swap(perm[static_cast<size_t>(j)], perm[pick]);
        }
      } else {
        for (size_t j = 0; j < static_cast<size_t>(topk); ++j) {
          auto is_taken = [&](size_t r) { return std::find(taken.begin(), taken.begin() + static_cast<std::ptrdiff_t>(j), r) != taken.begin() + static_cast<std::ptrdiff_t>(j); };
          size_t rank = E;
          for (uint64_t a = 0; a < kAttempts && rank == E; ++a) {
            // 53 random bits scaled to [0, total): an exact double, then the first rank whose cumulative exceeds it.
            const double u = static_cast<double>(sk.bits((base + j) * kAttempts + a) >> 11) * 0x1p-53 * cumulative.back();
            size_t r = static_cast<size_t>(std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin());
            r = std::min(r, E - 1);
            if (!is_taken(r)) rank = r;
          }
          for (size_t r = 0; rank == E; ++r)
            if (!is_taken(r)) rank = r;
          taken[j] = rank;
          perm[j] = by_rank[rank];
        }
      }
      for (int j = 0; j < topk; ++j) score[static_cast<size_t>(j)] = 0.05f + ws.uniform(base + static_cast<uint64_t>(j));
      std::vector<int> order(static_cast<size_t>(topk));
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return score[static_cast<size_t>(a)] > score[static_cast<size_t>(b)]; });
      float sum = 0.0f;
      for (float s : score) sum += s;
      for (int j = 0; j < topk; ++j) {
        const size_t o = static_cast<size_t>(order[static_cast<size_t>(j)]);
        out.topk_ids[base + static_cast<size_t>(j)] = perm[o];
        out.topk_weights[base + static_cast<size_t>(j)] = score[o] / sum;
      }
    }
  });
  return out;
}

double MoeInputs::stored_bytes() const {
  auto b = [](const auto& v) { return static_cast<double>(v.size() * sizeof(v[0])); };
  return b(x) + b(w1) + b(w2) + b(xq) + b(x_scale) + b(w1q) + b(w1_scale) + b(w2q) + b(w2_scale) + b(topk_ids) +
         b(topk_weights);
}

int MoeInputs::experts_reached() const {
  std::vector<char> used(static_cast<size_t>(std::max(experts, 0)), 0);
  for (int32_t e : topk_ids)
    if (e >= 0 && e < experts) used[static_cast<size_t>(e)] = 1;
  return static_cast<int>(std::count(used.begin(), used.end(), 1));
}

double MoeInputs::touched_bytes() const {
  const double active = experts_reached();
  auto b = [](const auto& v) { return static_cast<double>(v.size() * sizeof(v[0])); };
  const double weights = b(w1) + b(w2) + b(w1q) + b(w1_scale) + b(w2q) + b(w2_scale);
  const double share = experts > 0 ? active / experts : 1.0;
  return b(x) + b(xq) + b(x_scale) + b(topk_ids) + b(topk_weights) + share * weights;
}

namespace {

// The expert weights of make_moe_inputs (bf16, or fp8 with 128x128 scales): a function of the sizes,
// quantisation, seed and distribution only, not of the token count or the routing.
struct MoeWeights {
  SharedArray<uint16_t> w1, w2;
  SharedArray<uint8_t> w1q, w2q;
  SharedArray<float> w1_scale, w2_scale;
};

MoeWeights generate_moe_weights(int model_dim, int inter_dim, int experts, QuantType quant, Fp8Format fmt,
                                uint64_t seed, InputDistribution dist, int threads) {
  std::vector<uint16_t> w1, w2;
  std::vector<uint8_t> w1q, w2q;
  std::vector<float> w1_scale, w2_scale;
  const bool aiter = dist == InputDistribution::Aiter;
  const RandomStream w1s(seed, kStreamW), w2s(seed, kStreamW2);
  // AITER: weights = randn / 10, in bf16.
  auto wval = [&](const RandomStream& s, uint64_t i) {
    return float_to_bf16(aiter ? s.normal_like(i) / 10.0f : s.uniform(i, -0.1f, 0.1f));
  };
  const size_t D = static_cast<size_t>(model_dim), I = static_cast<size_t>(inter_dim), E = static_cast<size_t>(experts);
  if (quant == QuantType::No) {
    fill(w1, E * 2 * I * D, threads, [&](uint64_t i) { return wval(w1s, i); });
    fill(w2, E * D * I, threads, [&](uint64_t i) { return wval(w2s, i); });
    return {SharedArray<uint16_t>(std::move(w1)), SharedArray<uint16_t>(std::move(w2)), {}, {}, {}, {}};
  }
  const QDtype qd = qdtype_of(fmt);
  // Each expert's weights are generated and quantised on their own, so only one expert's floats exist at
  // a time per thread.
  const size_t w1_elems = 2 * I * D, w2_elems = D * I;
  const size_t w1_sc = static_cast<size_t>(ceil_div(2 * inter_dim, kScaleBlock) * ceil_div(model_dim, kScaleBlock));
  const size_t w2_sc = static_cast<size_t>(ceil_div(model_dim, kScaleBlock) * ceil_div(inter_dim, kScaleBlock));
  w1q.resize(E * w1_elems);
  w2q.resize(E * w2_elems);
  w1_scale.resize(E * w1_sc);
  w2_scale.resize(E * w2_sc);
  parallel_for(experts, threads, [&](int64_t lo, int64_t hi) {
    std::vector<float> buf;
    for (int64_t e = lo; e < hi; ++e) {
      const size_t ue = static_cast<size_t>(e);
      buf.resize(w1_elems);
      for (size_t i = 0; i < w1_elems; ++i) buf[i] = bf16_to_float(wval(w1s, ue * w1_elems + i));
      Quantized q1 = quant_per_128x128(buf.data(), 2 * inter_dim, model_dim, qd, 1);
      std::copy(q1.q.begin(), q1.q.end(), w1q.begin() + static_cast<std::ptrdiff_t>(ue * w1_elems));
      std::copy(q1.scales.begin(), q1.scales.end(), w1_scale.begin() + static_cast<std::ptrdiff_t>(ue * w1_sc));
      buf.resize(w2_elems);
      for (size_t i = 0; i < w2_elems; ++i) buf[i] = bf16_to_float(wval(w2s, ue * w2_elems + i));
      Quantized q2 = quant_per_128x128(buf.data(), model_dim, inter_dim, qd, 1);
      std::copy(q2.q.begin(), q2.q.end(), w2q.begin() + static_cast<std::ptrdiff_t>(ue * w2_elems));
      std::copy(q2.scales.begin(), q2.scales.end(), w2_scale.begin() + static_cast<std::ptrdiff_t>(ue * w2_sc));
    }
  });
  return {{}, {}, SharedArray<uint8_t>(std::move(w1q)), SharedArray<uint8_t>(std::move(w2q)),
          SharedArray<float>(std::move(w1_scale)), SharedArray<float>(std::move(w2_scale))};
}

// The last weights made, kept for the process: a tune of one MoE configuration over many token counts
// (DeepSeek-V3 TP8: 15, with 1.4 GB of fp8 weights each) generated and quantised the same weights once
// per token count. One set is kept (one configuration is tuned at a time); callers share it.
std::shared_ptr<const MoeWeights> moe_weights(int model_dim, int inter_dim, int experts, QuantType quant,
                                              Fp8Format fmt, uint64_t seed, InputDistribution dist, int threads) {
  using Key = std::tuple<int, int, int, QuantType, Fp8Format, uint64_t, InputDistribution>;
  static std::mutex mutex;
  static std::optional<Key> last_key;
  static std::shared_ptr<const MoeWeights> last;
  const Key key{model_dim, inter_dim, experts, quant, fmt, seed, dist};
  std::lock_guard<std::mutex> lock(mutex);
  if (last && last_key == key) return last;
  last.reset();  // the old set is freed before the new one is made
  last = std::make_shared<const MoeWeights>(generate_moe_weights(model_dim, inter_dim, experts, quant, fmt, seed, dist,
                                                                 threads));
  last_key = key;
  return last;
}

}  // namespace

MoeInputs make_moe_inputs(int tokens, int model_dim, int inter_dim, int experts, int topk, QuantType quant,
                          Fp8Format fmt, uint64_t seed, InputDistribution dist, int threads, MoeRouting routing) {
  require_positive({{"tokens", tokens}, {"model_dim", model_dim}, {"inter_dim", inter_dim}, {"experts", experts},
                    {"topk", topk}},
                   "moe");
  if (topk > experts) throw Error(fmt::format("moe inputs: topk {} exceeds the number of experts {}", topk, experts));
  if (quant != QuantType::No && quant != QuantType::Per1x128)
    throw Error(fmt::format("moe inputs: quantisation {} is not supported (use QuantType.No or QuantType.per_1x128)",
                            to_string(quant)));
  MoeInputs in;
  in.tokens = tokens;
  in.model_dim = model_dim;
  in.inter_dim = inter_dim;
  in.experts = experts;
  in.topk = topk;
  in.quant = quant;
  in.fmt = fmt;
  const bool aiter = dist == InputDistribution::Aiter;
  const RandomStream xs(seed, kStreamX);
  // AITER: x = randn (weights: moe_weights), in bf16.
  auto xval = [&](uint64_t i) { return float_to_bf16(aiter ? xs.normal_like(i) : xs.uniform(i, -1.0f, 1.0f)); };
  fill(in.x, static_cast<size_t>(tokens) * static_cast<size_t>(model_dim), threads, xval);
  if (quant == QuantType::Per1x128) {
    std::vector<float> xf(in.x.size());
    for (size_t i = 0; i < xf.size(); ++i) xf[i] = bf16_to_float(in.x[i]);
    Quantized qx = quant_per_1x128(xf.data(), tokens, model_dim, qdtype_of(fmt), threads);
    in.xq = std::move(qx.q);
    in.x_scale = std::move(qx.scales);
  }
  const auto w = moe_weights(model_dim, inter_dim, experts, quant, fmt, seed, dist, threads);
  in.w1 = w->w1;
  in.w2 = w->w2;
  in.w1q = w->w1q;
  in.w2q = w->w2q;
  in.w1_scale = w->w1_scale;
  in.w2_scale = w->w2_scale;

  MoeRoutingTable r = make_moe_routing(tokens, experts, topk, seed, routing, threads);
  in.topk_ids = std::move(r.topk_ids);
  in.topk_weights = std::move(r.topk_weights);
  return in;
}

}  // namespace cktune
