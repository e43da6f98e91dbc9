// percentile() and measure() with a fake instance, workload and timer (no device, no clock).
#include "cktune/engine/measure.hpp"

#include <gtest/gtest.h>

#include <vector>

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
  int collects = 0;

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

TEST(Measure, MinTimeExtendsTheRun) {
  FakeInstance inst;
  FakeWorkload wl(1);
  // 1 ms per launch; 3 iterations give 3 ms, min_time_ms = 10 asks for 7 more.
  FakeTimer timer(std::vector<double>(100, 1000.0));
  Protocol p;
  p.warmup = 0;
  p.iters = 3;
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
  Protocol p;
  p.warmup = 0;
  p.iters = 4;
  p.min_time_ms = 1e9;
  p.max_iters = 20;
  Measurement m = measure(inst, wl, timer, p);
  EXPECT_EQ(m.iters, 20);
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
}

}  // namespace
}  // namespace cktune
