// The screen's second pass (finish_screen, screen_cutoff) and which candidates the evaluation re-times interleaved
// (near_ties): the medians within the tolerance, and for a long best kernel, whose samples can swing with the power
// cap, every candidate whose p10 reaches its p90.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <vector>

#include "cktune/engine/evaluate.hpp"

namespace cktune {
namespace {

CandidateResult passed(double median, double p10, double p90) {
  CandidateResult r;
  r.verdict = Verdict::Passed;
  r.time.median_us = median;
  r.time.p10_us = p10;
  r.time.p90_us = p90;
  return r;
}

// A scripted candidate for finish_screen: each call returns the next median and records which protocol asked.
struct Script {
  std::vector<double> medians;
  std::vector<int> iters;  // the protocol of each call, by its iteration count
  Measurement operator()(const Protocol& p) {
    Measurement t;
    t.median_us = medians.at(iters.size());
    iters.push_back(p.iters);
    return t;
  }
};

Measurement probed(double us) {
  Measurement t;
  t.median_us = us;
  t.iters = 1;
  return t;
}

TEST(FinishScreen, OneSlowProbeDoesNotDropAKernel) {
  Protocol probe, rest;
  probe.iters = 1;
  rest.iters = 5;
  // The 2026-11-29 case: cuBLASLt's probe at 142 us for a kernel of 18 us, with the cut-off at 16.8 x 2 x 2.
  Script s{{18.1, 18.2}, {}};
  EXPECT_DOUBLE_EQ(finish_screen(std::ref(s), probed(142.0), probe, rest, 67.2).median_us, 18.2);
  EXPECT_EQ(s.iters, (std::vector<int>{1, 5}));  // probe again, full screen
  // Beyond the cut-off twice: it stops at its faster probe, without the full screen.
  Script slow{{140.0}, {}};
  EXPECT_DOUBLE_EQ(finish_screen(std::ref(slow), probed(150.0), probe, rest, 67.2).median_us, 140.0);
  EXPECT_EQ(slow.iters, (std::vector<int>{1}));
  // Beyond the cut-off by more than a hiccup (a 28 ms decode kernel on a big shape): no launch at all.
  Script hopeless{{}, {}};
  EXPECT_DOUBLE_EQ(finish_screen(std::ref(hopeless), probed(28000.0), probe, rest, 4500.0).median_us, 28000.0);
  EXPECT_TRUE(hopeless.iters.empty());
  // Within the cut-off: the full screen.
  Script fast{{19.0}, {}};
  EXPECT_DOUBLE_EQ(finish_screen(std::ref(fast), probed(20.0), probe, rest, 67.2).median_us, 19.0);
  EXPECT_EQ(fast.iters, (std::vector<int>{5}));
}

TEST(FinishScreen, TheCutOffComesFromTheBestProbeWhateverTheOrder) {
  // A big shape's table lists its slow kernels first (session 54's grid: 1,678 candidates got the full screen at
  // 7x the best on average, against the best so far): the cut-off is the best probe's, wherever it comes.
  std::vector<CandidateResult> slow_first = {passed(30000.0, 0, 0), passed(12000.0, 0, 0), passed(5200.0, 0, 0),
                                             passed(1500.0, 0, 0), passed(1480.0, 0, 0)};
  const double cut = screen_cutoff(slow_first, 1.5);
  EXPECT_DOUBLE_EQ(cut, 1480.0 * 1.5 * kProbeFactor);
  std::vector<CandidateResult> fast_first(slow_first.rbegin(), slow_first.rend());
  EXPECT_DOUBLE_EQ(screen_cutoff(fast_first, 1.5), cut);
  // Failed candidates do not count, however fast; none passed: no cut-off.
  slow_first[0].time.median_us = 10.0;
  slow_first[0].verdict = Verdict::Failed;
  EXPECT_DOUBLE_EQ(screen_cutoff(slow_first, 1.5), cut);
  for (auto& r : slow_first) r.verdict = Verdict::Failed;
  EXPECT_TRUE(std::isinf(screen_cutoff(slow_first, 1.5)));
}

TEST(RoundProtocol, ARoundsBatchIsNeverShorterThanTwoMilliseconds) {
  Job job;  // 101 launches after 5 warm-up, 5 rounds
  ASSERT_EQ(job.protocol.iters, 101);
  ASSERT_EQ(job.retime_rounds, 5);
  // The 2026-12-02 case: a 9 us kernel's round of 20 had its median among the last launches of the batch, which ran
  // 7% faster; its rounds now time as many launches as its first timing.
  EXPECT_EQ(round_protocol(job, 9.0).iters, 101);
  EXPECT_EQ(round_protocol(job, 50.0).iters, 40);
  EXPECT_EQ(round_protocol(job, 100.0).iters, 20);  // from here on a fifth of the launches, as before
  EXPECT_EQ(round_protocol(job, 1700.0).iters, 20);
  EXPECT_EQ(round_protocol(job, 0.0).iters, 20);     // no time known
  EXPECT_EQ(round_protocol(job, 9.0).warmup, 2);
  job.protocol.iters = 10;  // never more than the full timing's launches, never fewer than 5
  EXPECT_EQ(round_protocol(job, 9.0).iters, 10);
  EXPECT_EQ(round_protocol(job, 1700.0).iters, 5);
}

TEST(NearTies, MediansWithinTheToleranceOnly) {
  // Short kernels: overlapping spreads alone do not bring a candidate in.
  std::vector<CandidateResult> r = {passed(10.0, 9.5, 11.0), passed(10.1, 9.6, 10.8), passed(10.6, 9.9, 11.5)};
  EXPECT_EQ(near_ties(r, 0.02), (std::vector<size_t>{0, 1}));
  r[1].verdict = Verdict::Failed;
  EXPECT_TRUE(near_ties(r, 0.02).empty());  // one alone is no tie
}

TEST(NearTies, LongKernelsWhoseSpreadsOverlapAreRetimed) {
  // The 2026-11-25 case: our 269.0 us (p90 291.6) against cuBLASLt's median 288.0 with p10 269.7, 7% apart by
  // median, the other way round in every interleaved bench.
  std::vector<CandidateResult> r = {passed(288.0, 269.7, 291.2), passed(269.0, 267.0, 291.6),
                                    passed(297.4, 295.6, 300.5)};
  EXPECT_EQ(near_ties(r, 0.02), (std::vector<size_t>{0, 1}));
  // Apart: no overlap, no re-time.
  r[0] = passed(288.0, 285.0, 291.2);
  r[1] = passed(269.0, 267.0, 272.0);
  EXPECT_TRUE(near_ties(r, 0.02).empty());
  // Failed candidates never count, whatever their times.
  r[0] = passed(288.0, 269.7, 291.2);
  r[0].verdict = Verdict::Failed;
  EXPECT_TRUE(near_ties(r, 0.02).empty());
}

}  // namespace
}  // namespace cktune
