#include "cktune/verify/moe_stages.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/numerics/bf16.hpp"

namespace cktune {

namespace {

// The stage-1 output of tokens[i] as the reference re-quantises it.
MoeStage1Out stage1_of(const MoeInputs& in, size_t tokens, std::vector<float> a, int threads) {
  MoeStage1Out s;
  s.tokens = static_cast<int>(tokens);
  s.topk = in.topk;
  s.inter_dim = in.inter_dim;
  s.a = std::move(a);
  requantize_stage1(s, in, threads);
  return s;
}

// Whether token i's rows reach stage 2 as the same operand in both stage-1 outputs.
bool same_operand(const MoeInputs& in, const MoeStage1Out& x, const MoeStage1Out& y, size_t i) {
  const size_t I = static_cast<size_t>(in.inter_dim), topk = static_cast<size_t>(in.topk);
  const size_t r0 = i * topk, r1 = r0 + topk;
  if (!in.quantized()) return std::equal(x.a.begin() + r0 * I, x.a.begin() + r1 * I, y.a.begin() + r0 * I);
  const size_t kb = (I + 127) / 128;
  return std::equal(x.aq.begin() + r0 * I, x.aq.begin() + r1 * I, y.aq.begin() + r0 * I) &&
         std::memcmp(x.a_scale.data() + r0 * kb, y.a_scale.data() + r0 * kb, (r1 - r0) * kb * sizeof(float)) == 0;
}

// Rows of `expected` (the reference's output, [tokens, model_dim]) recomputed for the tokens whose stage-2
// operand differs from the reference's: the reference's stage 2 fed this stage 1's rows. Returns whether any did.
bool refeed_stage2(const MoeInputs& in, const MoeParams& p, const MoeStageOutputs& o, int threads,
                   std::vector<float>& expected) {
  const size_t n = o.tokens.size(), topk = static_cast<size_t>(in.topk), I = static_cast<size_t>(in.inter_dim),
               D = static_cast<size_t>(in.model_dim);
  std::vector<float> mine_a(n * topk * I);
  for (size_t k = 0; k < mine_a.size(); ++k) mine_a[k] = bf16_to_float(o.a[k]);
  const MoeStage1Out mine = stage1_of(in, n, std::move(mine_a), threads);
  const MoeStage1Out ref = stage1_of(in, n, std::vector<float>(o.ref_a, o.ref_a + n * topk * I), threads);
  std::vector<size_t> changed;
  for (size_t i = 0; i < n; ++i)
    if (!same_operand(in, mine, ref, i)) changed.push_back(i);
  if (changed.empty()) return false;
  std::vector<int64_t> toks(changed.size());
  std::vector<float> rows_a(changed.size() * topk * I);
  for (size_t c = 0; c < changed.size(); ++c) {
    toks[c] = o.tokens[changed[c]];
    std::copy_n(mine.a.begin() + static_cast<std::ptrdiff_t>(changed[c] * topk * I), topk * I,
                rows_a.begin() + static_cast<std::ptrdiff_t>(c * topk * I));
  }
  const MoeStage1Out sub = stage1_of(in, changed.size(), std::move(rows_a), threads);
  std::vector<float> y(changed.size() * D);
  ref_moe_stage2_tokens(in, p, sub, toks, y.data(), threads);
  for (size_t c = 0; c < changed.size(); ++c)
    std::copy_n(y.begin() + static_cast<std::ptrdiff_t>(c * D), D,
                expected.begin() + static_cast<std::ptrdiff_t>(changed[c] * D));
  return true;
}

}  // namespace

const std::vector<float>* MoeStage2Memo::find(std::span<const uint16_t> a) {
  for (Entry& e : entries_)
    if (e.a.size() == a.size() && std::equal(a.begin(), a.end(), e.a.begin())) {
      e.used = ++clock_;
      ++hits_;
      return &e.expected;
    }
  return nullptr;
}

void MoeStage2Memo::keep(std::span<const uint16_t> a, std::vector<float> expected) {
  const size_t need = a.size() * sizeof(uint16_t) + expected.size() * sizeof(float);
  if (capacity_ == 0 || need > max_bytes_) return;
  while (!entries_.empty() && (entries_.size() >= capacity_ || bytes_ + need > max_bytes_)) {
    auto oldest = std::min_element(entries_.begin(), entries_.end(),
                                   [](const Entry& x, const Entry& y) { return x.used < y.used; });
    bytes_ -= oldest->bytes();
    entries_.erase(oldest);
  }
  Entry& e = entries_.emplace_back();
  e.a.assign(a.begin(), a.end());
  e.expected = std::move(expected);
  e.used = ++clock_;
  bytes_ += need;
}

CheckResult check_moe_stages(const MoeInputs& in, const MoeParams& p, const MoeStageOutputs& o, const Tolerance& tol,
                             int threads, MoeStage2Memo* memo) {
  const size_t n = o.tokens.size(), topk = static_cast<size_t>(in.topk), I = static_cast<size_t>(in.inter_dim),
               D = static_cast<size_t>(in.model_dim);
  if (n == 0) throw Error("check_moe_stages: no tokens to check");

  // Stage 1: the (token, slot) rows of the checked tokens, rows of the whole [tokens*topk, inter] output.
  std::vector<int64_t> a_rows(n * topk);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < topk; ++j) a_rows[i * topk + j] = o.tokens[i] * static_cast<int64_t>(topk) + static_cast<int64_t>(j);
  const CheckResult s1 = check_gathered_rows(o.ref_a, o.a, a_rows, static_cast<int64_t>(in.tokens) * in.topk,
                                             in.inter_dim, o.unwritten_a, tol, threads);

  // Stage 2's reference: the reference's output where this stage 1 hands stage 2 the same operand as
  // the reference's does, else the reference's stage 2 on this stage 1's rows. Not built on a stage 1
  // that is not even finite (the re-quantisation of NaN means nothing): the exact chain stands in.
  std::vector<float> expected(o.ref_out, o.ref_out + n * D);
  if (!s1.catastrophic && s1.unwritten == 0) {
    const std::span<const uint16_t> a_bits(o.a, n * topk * I);
    if (const std::vector<float>* kept = memo != nullptr ? memo->find(a_bits) : nullptr) {
      expected = *kept;
    } else if (refeed_stage2(in, p, o, threads, expected) && memo != nullptr) {
      memo->keep(a_bits, expected);
    }
  }
  CheckResult r = check_gathered_rows(expected.data(), o.out, o.tokens, in.tokens, in.model_dim, o.unwritten_out, tol,
                                      threads);
  const CheckResult s2 = r;

  r.stage_err_ratios = {s1.err_ratio, s2.err_ratio};
  r.err_ratio = std::max(s1.err_ratio, s2.err_ratio);
  std::string reason;
  if (s1.verdict != Verdict::Passed) reason = fmt::format("stage 1 (gate/up output): {}", s1.reason);
  if (s2.verdict != Verdict::Passed)
    reason += fmt::format("{}stage 2 (output, fed this stage 1): {}", reason.empty() ? "" : "; ", s2.reason);
  if (s2.verdict == Verdict::Passed && s1.verdict != Verdict::Passed) r.verdict = s1.verdict;
  r.reason = std::move(reason);
  return r;
}

}  // namespace cktune
