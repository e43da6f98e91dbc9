// pick_winner (the stable tie rule) and shard_keys (deterministic, balanced, disjoint, covering).
#include "cktune/tune/tuner.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "cktune/core/error.hpp"

namespace cktune {
namespace {

CandidateResult cand(std::string name, double us, int split_k = 1, Provider provider = Provider::Cktune, int id = 0,
                     Verdict v = Verdict::Passed, double err = 0.0) {
  CandidateResult r;
  r.name = std::move(name);
  r.time.median_us = us;
  r.split_k = split_k;
  r.provider = provider;
  r.id = id;
  r.verdict = v;
  r.check.err_ratio = err;
  return r;
}

std::string winner(const std::vector<CandidateResult>& rs, double tie = 0.01, double err = 0.05) {
  auto w = pick_winner(rs, err, tie);
  return w ? rs[*w].name : "<none>";
}

TEST(PickWinner, FastestWinsOutsideTheTieBand) {
  std::vector<CandidateResult> rs = {cand("a", 10.0, 1, Provider::Cktune, 1), cand("b", 9.0, 4, Provider::Blaslt, 9),
                                     cand("c", 12.0)};
  EXPECT_EQ(winner(rs), "b");  // 10% faster beats every tie-break preference
}

TEST(PickWinner, WithinToleranceSmallerSplitKWins) {
  std::vector<CandidateResult> rs = {cand("sk4", 100.0, 4, Provider::Cktune, 1), cand("sk1", 100.5, 1, Provider::Cktune, 7)};
  EXPECT_EQ(winner(rs), "sk1");
  EXPECT_EQ(winner(rs, /*tie=*/0.001), "sk4");  // 0.5% apart is no tie at 0.1%
}

TEST(PickWinner, WithinToleranceCktuneBeforeVendor) {
  std::vector<CandidateResult> rs = {cand("vendor", 100.0, 1, Provider::Blaslt, 0), cand("ours", 100.8, 1, Provider::CktuneCpu, 5)};
  EXPECT_EQ(winner(rs), "ours");
}

TEST(PickWinner, WithinToleranceLowerIdThenName) {
  std::vector<CandidateResult> rs = {cand("z", 100.0, 1, Provider::Cktune, 3), cand("y", 100.2, 1, Provider::Cktune, 2)};
  EXPECT_EQ(winner(rs), "y");
  std::vector<CandidateResult> same_id = {cand("beta", 100.0, 1, Provider::Cktune, 2), cand("alpha", 100.2, 1, Provider::Cktune, 2)};
  EXPECT_EQ(winner(same_id), "alpha");
}

TEST(PickWinner, OrderOfResultsDoesNotMatter) {
  std::vector<CandidateResult> rs = {cand("a", 100.0, 2, Provider::Cktune, 4), cand("b", 100.3, 1, Provider::Blaslt, 1),
                                     cand("c", 100.6, 1, Provider::Cktune, 8), cand("d", 100.9, 1, Provider::Cktune, 6)};
  std::string first = winner(rs);
  EXPECT_EQ(first, "d");  // split 1, ours, lowest id among the tie
  std::reverse(rs.begin(), rs.end());
  EXPECT_EQ(winner(rs), first);
}

TEST(PickWinner, TieBandIsMeasuredFromTheFastest) {
  // c is within 1% of b but 1.5% from the fastest a: not part of the tie.
  std::vector<CandidateResult> rs = {cand("a", 100.0, 2, Provider::Cktune, 9), cand("b", 100.9, 2, Provider::Cktune, 8),
                                     cand("c", 101.5, 1, Provider::Cktune, 0)};
  EXPECT_EQ(winner(rs), "b");
}

TEST(PickWinner, IncorrectNotSupportedAndFailedNeverWin) {
  std::vector<CandidateResult> rs = {
      cand("wrong", 1.0, 1, Provider::Cktune, 0, Verdict::Incorrect, 0.5),
      cand("unsupported", 0.5, 1, Provider::Cktune, 0, Verdict::NotSupported),
      cand("timeout", std::numeric_limits<double>::infinity(), 1, Provider::Cktune, 0, Verdict::TimedOut),
      cand("crash", -1.0, 1, Provider::Cktune, 0, Verdict::Faulted),
      cand("failed", 0.1, 1, Provider::Cktune, 0, Verdict::Failed),
      cand("slow_ok", 50.0, 8, Provider::Blaslt, 99),
  };
  EXPECT_EQ(winner(rs), "slow_ok");
}

TEST(PickWinner, ErrRatioAboveTheLimitNeverWins) {
  std::vector<CandidateResult> rs = {cand("noisy", 1.0, 1, Provider::Cktune, 0, Verdict::Passed, 0.06),
                                     cand("clean", 5.0, 1, Provider::Cktune, 1, Verdict::Passed, 0.0)};
  EXPECT_EQ(winner(rs, 0.01, 0.05), "clean");
  EXPECT_EQ(winner(rs, 0.01, 0.1), "noisy");
}

TEST(PickWinner, NoneWhenNothingPassed) {
  EXPECT_EQ(winner({}), "<none>");
  EXPECT_EQ(winner({cand("x", 1.0, 1, Provider::Cktune, 0, Verdict::Incorrect, 1.0)}), "<none>");
}

// #12: a table for an AMD gfx is AITER's; cktune's own kernels and the vendor library may be faster, but
// AITER cannot build them, so only a CK / CK-tile instance may win there (and none, rather than another).
TEST(PickWinner, AnAiterTableNamesOnlyKernelsAiterCanBuild) {
  std::vector<CandidateResult> rs = {cand("ours", 5.0, 1, Provider::Cktune, 1), cand("vendor", 6.0, 1, Provider::Blaslt, 2),
                                     cand("ck_slow", 9.0, 1, Provider::Ck, 3), cand("cktile_mid", 8.0, 1, Provider::CkTile, 4),
                                     cand("ck_wrong", 1.0, 1, Provider::Ck, 5, Verdict::Incorrect, 1.0)};
  EXPECT_EQ(winner(rs), "ours");
  auto w = pick_winner(rs, 0.05, 0.01, WinnerScope::AiterLoadable);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(rs[*w].name, "cktile_mid");
  // The tie band is measured from the fastest eligible candidate, not from cktune's faster kernel.
  rs.push_back(cand("ck_tie", 8.05, 1, Provider::Ck, 0));
  EXPECT_EQ(rs[*pick_winner(rs, 0.05, 0.01, WinnerScope::AiterLoadable)].name, "ck_tie");
  std::vector<CandidateResult> none = {cand("ours", 5.0, 1, Provider::Cktune, 1), cand("vendor", 6.0, 1, Provider::Blaslt, 2)};
  EXPECT_FALSE(pick_winner(none, 0.05, 0.01, WinnerScope::AiterLoadable).has_value());
  EXPECT_TRUE(aiter_can_load(Provider::Ck) && aiter_can_load(Provider::CkTile));
  EXPECT_FALSE(aiter_can_load(Provider::Cktune) || aiter_can_load(Provider::CktuneCpu) || aiter_can_load(Provider::Blaslt));
}

// A baseline-only instance (a8w8_bpreshuffle's cuBLASLt on row-major weights) is bench's baseline and never
// a tune candidate, whatever the filters; the other filters still apply.
TEST(FilterCandidates, BaselineOnlyNeverAndTheFiltersStillApply) {
  auto desc = [](std::string name, Provider p, int split_k, bool baseline_only) {
    InstanceDesc d;
    d.name = std::move(name);
    d.provider = p;
    d.split_k = split_k;
    d.baseline_only = baseline_only;
    return d;
  };
  const std::vector<InstanceDesc> all = {desc("ptps_mma_a", Provider::Cktune, 1, false),
                                         desc("ptps_mma_b", Provider::Cktune, 4, false),
                                         desc("blaslt_h0", Provider::Blaslt, 1, true)};
  auto names = [](const std::vector<InstanceDesc>& v) {
    std::vector<std::string> n;
    for (const auto& d : v) n.push_back(d.name);
    return n;
  };
  TuneOptions o;
  EXPECT_EQ(names(filter_candidates(all, o)), (std::vector<std::string>{"ptps_mma_a", "ptps_mma_b"}));
  o.libtypes = {"blaslt"};
  EXPECT_TRUE(filter_candidates(all, o).empty());
  o.libtypes = {"all"};
  o.split_k = false;
  EXPECT_EQ(names(filter_candidates(all, o)), (std::vector<std::string>{"ptps_mma_a"}));
  o.split_k = true;
  o.kernels = "_b$";
  EXPECT_EQ(names(filter_candidates(all, o)), (std::vector<std::string>{"ptps_mma_b"}));
  o.kernels.clear();
  o.exclude_kernels = "_b$";
  EXPECT_EQ(names(filter_candidates(all, o)), (std::vector<std::string>{"ptps_mma_a"}));
  o.kernels = "mma";
  o.exclude_kernels = "mma";
  EXPECT_TRUE(filter_candidates(all, o).empty());
  o.exclude_kernels = "(";
  EXPECT_THROW(filter_candidates(all, o), Error);
}

std::vector<ProblemKey> gemm_keys(int n) {
  std::vector<ProblemKey> keys;
  for (int i = 0; i < n; ++i) {
    ProblemKey k;
    k.family = Family::A8W8Blockscale;
    k.cells = {std::to_string(1 << (i % 9)), std::to_string(128 * (1 + i % 5)), std::to_string(256 * (1 + i % 7))};
    keys.push_back(k);
  }
  return keys;
}

TEST(ShardKeys, EmptySpecIsEverything) {
  auto keys = gemm_keys(10);
  EXPECT_EQ(shard_keys(keys, ""), keys);
}

TEST(ShardKeys, DisjointCoveringAndDeterministic) {
  auto keys = gemm_keys(37);
  for (int n : {1, 2, 3, 5, 8}) {
    std::multiset<std::vector<std::string>> all;
    for (int i = 1; i <= n; ++i) {
      auto a = shard_keys(keys, std::to_string(i) + "/" + std::to_string(n));
      auto b = shard_keys(keys, std::to_string(i) + "/" + std::to_string(n));
      EXPECT_EQ(a, b) << i << "/" << n;
      if (n <= static_cast<int>(keys.size())) {
        EXPECT_FALSE(a.empty()) << i << "/" << n;
      }
      for (const auto& k : a) all.insert(k.cells);
    }
    std::multiset<std::vector<std::string>> want;
    for (const auto& k : keys) want.insert(k.cells);
    EXPECT_EQ(all, want) << "n=" << n;  // every key exactly once
  }
}

TEST(ShardKeys, KeepsFileOrderWithinAShard) {
  auto keys = gemm_keys(20);
  auto s = shard_keys(keys, "2/3");
  size_t pos = 0;
  for (const auto& k : s) {
    while (pos < keys.size() && keys[pos] != k) ++pos;
    ASSERT_LT(pos, keys.size()) << "shard order differs from the input order";
  }
}

TEST(ShardKeys, IndependentOfInputOrder) {
  auto keys = gemm_keys(25);
  auto reversed = keys;
  std::reverse(reversed.begin(), reversed.end());
  for (int i = 1; i <= 4; ++i) {
    std::string spec = std::to_string(i) + "/4";
    auto a = shard_keys(keys, spec), b = shard_keys(reversed, spec);
    std::set<std::vector<std::string>> sa, sb;
    for (auto& k : a) sa.insert(k.cells);
    for (auto& k : b) sb.insert(k.cells);
    EXPECT_EQ(sa, sb) << spec;
  }
}

TEST(ShardKeys, CostBalanced) {
  // One huge shape and many small ones: the huge one gets a shard to itself, the rest share the others.
  std::vector<ProblemKey> keys;
  auto key = [](long m, long n, long k) {
    ProblemKey p;
    p.family = Family::A8W8Blockscale;
    p.cells = {std::to_string(m), std::to_string(n), std::to_string(k)};
    return p;
  };
  keys.push_back(key(8192, 8192, 8192));
  for (int i = 1; i <= 12; ++i) keys.push_back(key(i, 256, 256));
  auto cost = [](const std::vector<ProblemKey>& ks) {
    double c = 0;
    for (auto& k : ks) c += k.flops() + 64.0 * k.min_bytes();
    return c;
  };
  auto s1 = shard_keys(keys, "1/3"), s2 = shard_keys(keys, "2/3"), s3 = shard_keys(keys, "3/3");
  EXPECT_EQ(s1.size(), 1u);
  EXPECT_EQ(s1.front().cells[0], "8192");
  EXPECT_EQ(s2.size() + s3.size(), 12u);
  // The small shapes are split evenly by cost (greedy: within one shape's cost).
  double c2 = cost(s2), c3 = cost(s3), biggest_small = cost({key(12, 256, 256)});
  EXPECT_LE(std::abs(c2 - c3), biggest_small);
}

TEST(ShardKeys, BadSpecsThrow) {
  auto keys = gemm_keys(4);
  for (const char* bad : {"0/2", "3/2", "2", "a/b", "1/0", "/", "-1/2"}) EXPECT_THROW(shard_keys(keys, bad), Error) << bad;
}

}  // namespace
}  // namespace cktune
