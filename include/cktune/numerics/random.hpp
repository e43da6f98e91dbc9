#pragma once
// Reproducible random inputs. Every value is a pure function of (seed, stream, index) through
// splitmix64 and a hand-written uniform mapping (std::*_distribution output is implementation-defined),
// with no transcendental functions (libm results may differ across machines). So any machine and any
// thread count produces bit-identical inputs for the same seed.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "cktune/core/names.hpp"
#include "cktune/numerics/fp8.hpp"
#include "cktune/numerics/quant.hpp"

namespace cktune {

inline uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// A counter-based stream: value(i) depends only on the seed, the stream id and i.
class RandomStream {
 public:
  RandomStream(uint64_t seed, uint64_t stream);
  uint64_t bits(uint64_t i) const { return splitmix64(key_ + i * 0xd1b54a32d192ed03ull); }
  // The 24 random bits behind uniform(i), and the mapping from them (shared, so that a table built
  // over every u24 gives bit-identical values).
  uint32_t u24(uint64_t i) const { return static_cast<uint32_t>(bits(i) >> 40); }
  static float unit_of(uint32_t u24) { return static_cast<float>(u24) * 0x1p-24f; }
  static float range_of(uint32_t u24, float lo, float hi) { return lo + (hi - lo) * unit_of(u24); }
  // [0, 1) with 24 random bits: every value is an exact float, like torch.rand's float32 output.
  float uniform(uint64_t i) const { return unit_of(u24(i)); }
  float uniform(uint64_t i, float lo, float hi) const { return range_of(u24(i), lo, hi); }
  // Bell-shaped, mean 0, variance 1: the sum of four uniforms, centred and scaled (Irwin-Hall).
  // Tails stop at +-2*sqrt(3); good enough for test data and free of libm.
  float normal_like(uint64_t i) const;
  // Uniform integer in [0, n) (multiply-shift; bias below 2^-32 per draw).
  uint32_t below(uint64_t i, uint32_t n) const {
    return static_cast<uint32_t>(((bits(i) >> 32) * static_cast<uint64_t>(n)) >> 32);
  }

 private:
  uint64_t key_;
};

// The fp8 code of map(u24) for every 24-bit draw, where map is non-decreasing (a uniform range):
// float_to_fp8 costs ~10 ns a value (branches on random data), a table lookup ~1. The draws are cut
// into 2^16 buckets of 256; a bucket whose two ends round to the same code holds only that code (the
// codes of a non-decreasing map are non-decreasing in value, and a bucket whose ends are both -0 or
// both +0 lies on one side of zero), the few others (at most one per code boundary) convert each
// value. Bit-identical to converting every value (unit-tested over all 2^24 draws).
template <class Map>
class Fp8OfDraw {
 public:
  Fp8OfDraw(Map map, Fp8Format fmt) : map_(map), fmt_(fmt), bucket_(size_t{1} << 16) {
    for (uint32_t b = 0; b < bucket_.size(); ++b) {
      const uint8_t first = float_to_fp8(map_(b << 8), fmt_), last = float_to_fp8(map_((b << 8) | 0xffu), fmt_);
      bucket_[b] = first == last ? first : kMixed;
    }
  }
  uint8_t operator()(uint32_t u24) const {
    const uint16_t c = bucket_[u24 >> 8];
    return c != kMixed ? static_cast<uint8_t>(c) : float_to_fp8(map_(u24), fmt_);
  }

 private:
  static constexpr uint16_t kMixed = 0x100;
  Map map_;
  Fp8Format fmt_;
  std::vector<uint16_t> bucket_;
};

// How activations and weights are drawn. Signed is the default: with AITER's all-positive blockscale
// data, sum_k x[k+1] w[k] is statistically indistinguishable from sum_k x[k] w[k], so an off-by-one
// activation load passes errRatio (measured: 0.0002 to 0.035 on the planted corrupt-row kernel,
// tests/unit/cpu/gemm_kernels_test.cpp). Aiter stays available to reproduce AITER's test data.
enum class InputDistribution {
  Aiter,   // as AITER's op tests: blockscale x, w = rand/10 (all >= 0) and scales = rand;
           // PTPC / MoE: randn-like values quantised per token / channel / block.
  Signed,  // values uniform in [-0.1, 0.1) before quantisation (MoE x: [-1, 1)); scales in
           // [0.5, 1.5). Outputs sum terms of both signs, so a misaddressed or dropped block shows
           // up as a large relative error instead of a small bias: the stricter test, cktune's default.
};
using InputDistributionName = EnumName<InputDistribution>;
inline constexpr InputDistributionName kInputDistributionNames[] = {
    {InputDistribution::Aiter, "aiter"},
    {InputDistribution::Signed, "signed"},
};
std::string_view to_string(InputDistribution d);
std::optional<InputDistribution> input_distribution_from_string(std::string_view s);

// a8w8_blockscale (and its bpreshuffle twin, after preshuffle_weight / transpose of x_scale).
struct BlockscaleGemmInputs {
  int M = 0, N = 0, K = 0;
  Fp8Format fmt = Fp8Format::E4M3FN;
  std::vector<uint8_t> xq;       // [M, K]
  std::vector<float> x_scale;    // [M, ceil(K/128)]
  std::vector<uint8_t> wq;       // [N, K]
  std::vector<float> w_scale;    // [ceil(N/128), ceil(K/128)]
  int64_t k_blocks() const { return ceil_div(K, kScaleBlock); }
  int64_t n_blocks() const { return ceil_div(N, kScaleBlock); }
};
BlockscaleGemmInputs make_blockscale_inputs(int M, int N, int K, Fp8Format fmt, uint64_t seed,
                                            InputDistribution dist = InputDistribution::Signed);

// a8w8 per-token / per-channel (and a8w8_bpreshuffle after preshuffle_weight).
struct PtpcGemmInputs {
  int M = 0, N = 0, K = 0;
  QDtype dtype = QDtype::Int8;
  std::vector<uint8_t> xq;       // [M, K]
  std::vector<float> x_scale;    // [M]
  std::vector<uint8_t> wq;       // [N, K]
  std::vector<float> w_scale;    // [N]
};
PtpcGemmInputs make_ptpc_inputs(int M, int N, int K, QDtype dtype, uint64_t seed,
                                InputDistribution dist = InputDistribution::Signed);

// How MoE tokens are routed to experts (make_moe_routing / make_moe_inputs). Both draw topk distinct
// experts per token and the same weights (positive, descending, each row summing to 1); only which
// experts differs.
enum class MoeRouting {
  Uniform,  // every expert equally likely: the default, bit-identical to the generator before routing
            // choices existed
  Skewed,   // Zipf-like popularity: the expert of popularity rank r (0 = most popular; ranks are a
            // seeded permutation of the experts) is drawn with weight 1 / (r + 1)^kMoeSkewExponent,
            // without replacement within a token
};
using MoeRoutingName = EnumName<MoeRouting>;
inline constexpr MoeRoutingName kMoeRoutingNames[] = {
    {MoeRouting::Uniform, "uniform"},
    {MoeRouting::Skewed, "skewed"},
};
std::string_view to_string(MoeRouting r);
std::optional<MoeRouting> moe_routing_from_string(std::string_view s);

// The Zipf exponent of MoeRouting::Skewed. 1.25 = 1 + 1/4, so that r^-s is 1 / (r * sqrt(sqrt(r))):
// IEEE-exact operations only, no libm (the inputs must be bit-identical on every machine). With 256
// experts and topk 8 the most popular expert is in about 19 tokens out of 20 and the top 10% of the
// experts take about 2/3 of the pairs (uniform: 1 in 32 and 1/10).
inline constexpr double kMoeSkewExponent = 1.25;

struct MoeRoutingTable {
  int tokens = 0, experts = 0, topk = 0;
  std::vector<int32_t> topk_ids;    // [T, topk], distinct experts per token
  std::vector<float> topk_weights;  // [T, topk], positive, descending, each row sums to 1
};
// The routing alone (what make_moe_inputs draws for the same seed). A pure function of (seed, sizes,
// routing): any thread count gives the same table. Throws Error for topk > experts or non-positive sizes.
MoeRoutingTable make_moe_routing(int tokens, int experts, int topk, uint64_t seed,
                                 MoeRouting routing = MoeRouting::Uniform, int threads = 0);

// An immutable array shared by its copies (the read-only vector interface: data, size, [], iteration,
// ==). make_moe_inputs hands the same expert weights to every token count of a configuration this way:
// at DeepSeek-V3 sizes they are 1.4 GB, too much to generate, or even copy, once per token count.
template <class T>
class SharedArray {
 public:
  using value_type = T;
  using const_iterator = const T*;
  using iterator = const T*;
  SharedArray() = default;
  explicit SharedArray(std::vector<T> v) : v_(std::make_shared<const std::vector<T>>(std::move(v))) {}
  const T* data() const { return v_ ? v_->data() : nullptr; }
  size_t size() const { return v_ ? v_->size() : 0; }
  bool empty() const { return size() == 0; }
  const T& operator[](size_t i) const { return (*v_)[i]; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size(); }
  friend bool operator==(const SharedArray& a, const SharedArray& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
  }

 private:
  std::shared_ptr<const std::vector<T>> v_;
};

// Fused MoE, g1u1. Quantisation QuantType::No keeps bf16 operands; QuantType::Per1x128 quantises x
// per 1x128 and each expert's weights per 128x128 (bf16 weights are then not kept: at DeepSeek
// sizes w1 alone is ~1 G elements).
struct MoeInputs {
  int tokens = 0, model_dim = 0, inter_dim = 0, experts = 0, topk = 0;
  QuantType quant = QuantType::Per1x128;
  Fp8Format fmt = Fp8Format::E4M3FN;
  std::vector<uint16_t> x;          // [T, model_dim] bf16 bits, always present
  SharedArray<uint16_t> w1;         // [E, 2*inter, model_dim] bf16 bits (QuantType::No only)
  SharedArray<uint16_t> w2;         // [E, model_dim, inter]  bf16 bits (QuantType::No only)
  std::vector<uint8_t> xq;          // [T, model_dim]                                   (Per1x128)
  std::vector<float> x_scale;       // [T, ceil(model_dim/128)]
  SharedArray<uint8_t> w1q;         // [E, 2*inter, model_dim]
  SharedArray<float> w1_scale;      // [E, ceil(2*inter/128), ceil(model_dim/128)]
  SharedArray<uint8_t> w2q;         // [E, model_dim, inter]
  SharedArray<float> w2_scale;      // [E, ceil(model_dim/128), ceil(inter/128)]
  std::vector<int32_t> topk_ids;    // [T, topk], distinct experts per token
  std::vector<float> topk_weights;  // [T, topk], positive, descending, each row sums to 1

  bool quantized() const { return quant == QuantType::Per1x128; }
  // Distinct experts in [0, experts) that topk_ids names: whose weights one pass reads.
  int experts_reached() const;
  // Bytes one pass of the fused MoE reads: the activations and the weights (and scales) of the experts
  // the routing uses. At a few tokens that is a small share of the weights (DeepSeek-V3 TP8, 1 token:
  // 8 of 256 experts, 44 MB), which a GPU's L2 can hold; the rotation sets are sized by it.
  double touched_bytes() const;
  // Bytes one copy of all inputs occupies.
  double stored_bytes() const;
};
// Throws Error for topk > experts, non-positive sizes, or a quant other than No / Per1x128.
// topk_ids / topk_weights are make_moe_routing(tokens, experts, topk, seed, routing).
MoeInputs make_moe_inputs(int tokens, int model_dim, int inter_dim, int experts, int topk, QuantType quant,
                          Fp8Format fmt, uint64_t seed, InputDistribution dist = InputDistribution::Signed,
                          int threads = 0, MoeRouting routing = MoeRouting::Uniform);

}  // namespace cktune
