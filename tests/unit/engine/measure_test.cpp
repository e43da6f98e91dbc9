// percentile() and measure() with a fake instance, workload and timer (no device, no clock).
#include "cktune/engine/measure.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "cktune/core/error.hpp"
#include "cktune/engine/instance.hpp"
#include "cktune/engine/workload.hpp"

namespace cktune {
namespace {

TEST(Percentile, LinearInterpolation) {
  EXPECT_DOUBLE_EQ(percentile({}, 0.5), 0.0);
  EXPECT_DOUBLE_EQ(percentile({7}, 0.9), 7.0);
  EXPECT_DOUBLE_EQ(percentile({3, 1, 2}, 0.5), 2.0);   // unsorted input
  EXPECT_DOUBLE_EQ(percentile({4, 1, 3, 2}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(percentile({1, 2, 3, 4, 5}, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(percentile({1, 2, 3, 4, 5}, 1.0), 5.0);
  EXPECT_DOUBLE_EQ(percentile({0, 10}, 0.1), 1.0);
}

class NoOutput final : public OutputBuffer {
 public:
  void poison() override {}
  void read(std::vector<std::uint16_t>&) override {}
  void corrupt(FaultKind) override {}
};

class FakeWorkload final : public Workload {
 public:
  explicit FakeWorkload(int sets) : sets_(sets) {}
  int sets() const override { return sets_; }
  OutputBuffer& output() override { return out_; }

 private:
  int sets_;
  NoOutput out_;
};

class FakeInstance final : public Instance {
 public:
  FakeInstance() : Instance(InstanceDesc{}) {}
  std::string why_not(const ProblemKey&) const override { return {}; }
  void launch(Workload&, int set) override { sets.push_back(set); }
  std::vector<int> sets;
};

// Returns the programmed durations in order, one per begin/end pair.
class FakeTimer final : public Timer {
 public:
  explicit FakeTimer(std::vector<double> us) : us_(std::move(us)) {}
  void begin(int) override {}
  void end(int) override { ++pending_; }
  void reserve(int) override {}
  std::vector<double> collect_us() override {
    std::vector<double> out;
    for (int i = 0; i < pending_; ++i) out.push_back(us_.at(next_++));
    pending_ = 0;
    ++collects;
    return out;
  }
  bool queued_in_time() const override { return collects > late_batches; }
  int collects = 0;
  int late_batches = 0;  // the first this many batches report that the device reached them before they were queued

 private:
  std::vector<double> us_;
  size_t next_ = 0;
  int pending_ = 0;
};

TEST(Measure, StatisticsOverTimedLaunchesOnly) {
  FakeInstance inst;
  FakeWorkload wl(3);
  FakeTimer timer({5, 1, 4, 2, 3});
  Protocol p;
  p.warmup = 2;
  p.iters = 5;
  Measurement m = measure(inst, wl, timer, p);
  EXPECT_EQ(m.iters, 5);
  EXPECT_EQ(m.sets, 3);
  EXPECT_DOUBLE_EQ(m.median_us, 3.0);
  EXPECT_DOUBLE_EQ(m.min_us, 1.0);
  EXPECT_DOUBLE_EQ(m.mean_us, 3.0);
  EXPECT_DOUBLE_EQ(m.p10_us, 1.4);
  EXPECT_DOUBLE_EQ(m.p90_us, 4.6);
  // 2 warm-up + 5 timed launches, rotating through the sets without restarting after warm-up.
  EXPECT_EQ(inst.sets, (std::vector<int>{0, 1, 2, 0, 1, 2, 0}));
}

TEST(Measure, ATimingAfterAnotherGoesOnWithTheRotation) {
  // Interleaved rounds time one kernel right after another on the same inputs: each timing starts on the set after
  // the last one's final launch, never on the sets that launch left in the L2.
  FakeInstance a, b;
  FakeWorkload wl(4);
  FakeTimer timer(std::vector<double>(20, 1.0));
  Protocol p;
  p.warmup = 1;
  p.iters = 2;
  measure(a, wl, timer, p);
  measure(b, wl, timer, p);
  measure(a, wl, timer, p);
  EXPECT_EQ(a.sets, (std::vector<int>{0, 1, 2, 2, 3, 0}));
  EXPECT_EQ(b.sets, (std::vector<int>{3, 0, 1}));
  EXPECT_EQ(wl.next_set, 1);
}

// A protocol with no warm-up and `iters` timed launches.
Protocol timed(int iters) {
  Protocol p;
  p.warmup = 0;
  p.iters = iters;
  return p;
}

TEST(Measure, ABatchTheDeviceReachedBeforeItWasQueuedIsTimedAgain) {
  // The 2026-12-02 case: 6 of a grid tune's 7,847 batches took the host longer to queue than the spin allowed, so
  // the device timed the host's gaps: such a batch is dropped and timed again, launches going on with the rotation;
  // its samples never reach the statistics.
  FakeInstance inst;
  FakeWorkload wl(4);
  std::vector<double> us(5, 1.0);               // the late batch
  us.insert(us.end(), 5, 2.0);                  // the one kept
  FakeTimer timer(us);
  timer.late_batches = 1;
  Protocol p;
  p.warmup = 1;
  p.iters = 5;
  Measurement m = measure(inst, wl, timer, p);
  EXPECT_EQ(timer.collects, 2);
  EXPECT_EQ(m.iters, 5);
  EXPECT_DOUBLE_EQ(m.median_us, 2.0);
  EXPECT_DOUBLE_EQ(m.min_us, 2.0);
  EXPECT_EQ(inst.sets, (std::vector<int>{0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2}));
  // A device that always gets there first (a timer that cannot be kept ahead): three batches again at most, then
  // the fourth is kept rather than timing forever.
  FakeInstance inst2;
  FakeTimer timer2(std::vector<double>(20, 3.0));
  timer2.late_batches = 1000;
  Measurement m2 = measure(inst2, wl, timer2, p);
  EXPECT_EQ(timer2.collects, 4);
  EXPECT_EQ(m2.iters, 5);
}

TEST(Measure, MinTimeExtendsTheRun) {
  FakeInstance inst;
  FakeWorkload wl(1);
  // 1 ms per launch; 3 iterations give 3 ms, min_time_ms = 10 asks for 7 more.
  FakeTimer timer(std::vector<double>(100, 1000.0));
  Protocol p = timed(3);
  p.min_time_ms = 10;
  Measurement m = measure(inst, wl, timer, p);
  EXPECT_EQ(m.iters, 10);
  EXPECT_GE(timer.collects, 2);
  EXPECT_DOUBLE_EQ(m.median_us, 1000.0);
}

TEST(Measure, MaxItersCapsMinTime) {
  FakeInstance inst;
  FakeWorkload wl(2);
  FakeTimer timer(std::vector<double>(100, 1.0));
  Protocol p = timed(4);
  p.min_time_ms = 1e9;
  p.max_iters = 20;
  Measurement m = measure(inst, wl, timer, p);
  EXPECT_EQ(m.iters, 20);
}

TEST(Measure, LongLaunchesSettleFirst) {
  // 2 ms launches: the first 20 run at the clocks of a cold GPU (1.5 ms), the next 30 swing (3 ms), then
  // steady (2.2 ms). Settling drops the leading launches until they add up to min(100 ms, 40 launches).
  std::vector<double> us(20, 1500.0);
  for (int i = 0; i < 30; ++i) us.push_back(3000.0);
  for (int i = 0; i < 200; ++i) us.push_back(2200.0);
  FakeInstance inst;
  FakeWorkload wl(2);
  FakeTimer timer(us);
  Protocol p = timed(50);
  p.settle_ms = 100;
  Measurement m = measure(inst, wl, timer, p);
  EXPECT_EQ(m.iters, 50);  // as many as asked, after the dropped ones
  // The first 50 launches' typical time is 3 ms: min(100 ms, 40 x 3 ms) = 100 ms, reached after
  // 20 x 1.5 + 24 x 3 ms; 6 swinging launches stay among the 50 kept.
  EXPECT_DOUBLE_EQ(m.median_us, 2200.0);
  EXPECT_DOUBLE_EQ(m.p90_us, 3000.0);
  EXPECT_EQ(inst.sets.size(), 94u);  // 44 dropped + 50 kept

  // The same launches without settling: the cold and swinging ones are in the statistics.
  FakeInstance inst2;
  FakeTimer timer2(us);
  p.settle_ms = 0;
  Measurement plain = measure(inst2, wl, timer2, p);
  EXPECT_EQ(plain.iters, 50);
  EXPECT_DOUBLE_EQ(plain.median_us, 3000.0);
}

TEST(Measure, LongLaunchesGoInBatchesThatNoteProgress) {
  // 0.5 s launches with the screen's time as the hint: batches of 4 (kMaxBatchUs), each noted as progress, so that a
  // slow kernel is never mistaken for a hung one (PoolOptions::stall_timeout_s).
  FakeInstance inst;
  FakeWorkload wl(1);
  FakeTimer timer(std::vector<double>(100, 5e5));
  const std::uint64_t before = progress_count();
  Measurement m = measure(inst, wl, timer, timed(10), 5e5);
  EXPECT_EQ(m.iters, 10);
  EXPECT_EQ(timer.collects, 3);  // 4 + 4 + 2
  EXPECT_EQ(progress_count() - before, 3u);

  // Without a hint the first batch is whole; the hint never changes what is timed.
  FakeTimer timer2(std::vector<double>(100, 5e5));
  Measurement plain = measure(inst, wl, timer2, timed(10));
  EXPECT_EQ(timer2.collects, 1);
  EXPECT_EQ(plain.iters, 10);
  EXPECT_DOUBLE_EQ(plain.median_us, m.median_us);

  // Short launches: one batch, as before.
  FakeTimer timer3(std::vector<double>(100, 20.0));
  EXPECT_EQ(measure(inst, wl, timer3, timed(50), 20.0).iters, 50);
  EXPECT_EQ(timer3.collects, 1);
}

TEST(Measure, ShortLaunchesAreNotSettled) {
  FakeInstance inst;
  FakeWorkload wl(1);
  FakeTimer timer(std::vector<double>(100, 20.0));  // 20 us: below the 100 us threshold
  Protocol p = timed(10);
  p.settle_ms = 100;
  Measurement m = measure(inst, wl, timer, p);
  EXPECT_EQ(m.iters, 10);
  EXPECT_EQ(inst.sets.size(), 10u);
}

TEST(Protocol, DescribeNamesEverything) {
  Protocol p;
  p.timer = "steady_clock";
  p.warmup = 1;
  p.iters = 3;
  p.seed = 9;
  EXPECT_EQ(p.describe(4), "timer=steady_clock;warmup=1;iters=3;min_time_ms=0;rotate=4;stat=median;seed=9");
  p.timer.clear();
  EXPECT_NE(p.describe(1).find("timer=unknown"), std::string::npos);
  p.settle_ms = 100;
  EXPECT_NE(p.describe(1).find(";settle_ms=100"), std::string::npos);
}

Measurement timing(double median, double p10, double p90, double min, int iters, double mean) {
  return Measurement{
      .median_us = median, .min_us = min, .p10_us = p10, .p90_us = p90, .mean_us = mean, .iters = iters, .sets = 4};
}

TEST(CombineTimings, OneBurstMovesTheMedianLittle) {
  // Three parts of one kernel's timing; the second ran during a neighbour's burst (24% slower, tight).
  std::vector<Measurement> parts = {timing(1120, 1100, 1150, 1090, 50, 1125), timing(1390, 1370, 1420, 1360, 40, 1395),
                                    timing(1130, 1105, 1160, 1095, 50, 1132)};
  Measurement c = combine_timings(parts);
  EXPECT_DOUBLE_EQ(c.median_us, 1130);  // the median of the medians, not their mean (1213)
  EXPECT_DOUBLE_EQ(c.p10_us, 1105);     // the typical bounds
  EXPECT_DOUBLE_EQ(c.p90_us, 1160);
  EXPECT_DOUBLE_EQ(c.min_us, 1090);
  EXPECT_EQ(c.iters, 140);
  EXPECT_NEAR(c.mean_us, (1125.0 * 50 + 1395.0 * 40 + 1132.0 * 50) / 140, 1e-9);
  EXPECT_EQ(c.sets, 4);
}

TEST(CombineTimings, TheIntervalAlwaysHoldsTheMedian) {
  // Medians that sit outside the parts' typical bounds (each part tight, the parts apart).
  Measurement c = combine_timings({timing(10, 9.9, 10.1, 9.8, 5, 10), timing(20, 19.9, 20.1, 19.8, 5, 20),
                                   timing(30, 29.9, 30.1, 29.8, 5, 30), timing(40, 39.9, 40.1, 39.8, 5, 40)});
  EXPECT_DOUBLE_EQ(c.median_us, 25);
  EXPECT_LE(c.p10_us, c.median_us);
  EXPECT_GE(c.p90_us, c.median_us);
  Measurement one = combine_timings({timing(7, 6, 8, 5, 3, 7)});
  EXPECT_DOUBLE_EQ(one.median_us, 7);
  EXPECT_DOUBLE_EQ(one.p10_us, 6);
  EXPECT_DOUBLE_EQ(one.p90_us, 8);
  EXPECT_THROW(combine_timings({}), Error);
}

}  // namespace
}  // namespace cktune
