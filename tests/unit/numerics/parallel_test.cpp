#include "cktune/numerics/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace cktune {
namespace {

// Each call's chunks, as (lo, hi) pairs sorted by lo.
std::vector<std::pair<int64_t, int64_t>> chunks_of(int64_t n, int threads) {
  std::mutex m;
  std::vector<std::pair<int64_t, int64_t>> seen;
  parallel_for(n, threads, [&](int64_t lo, int64_t hi) {
    std::lock_guard lock(m);
    seen.emplace_back(lo, hi);
  });
  std::sort(seen.begin(), seen.end());
  return seen;
}

TEST(ParallelFor, ChunksAreFixedByTheThreadCountAndCoverTheRangeOnce) {
  for (int threads : {1, 2, 3, 7, 16, 64}) {
    for (int64_t n : {1, 5, 64, 1000, 12345}) {
      const auto seen = chunks_of(n, threads);
      const int64_t t = std::min<int64_t>(threads, n);
      ASSERT_EQ(static_cast<int64_t>(seen.size()), t) << "n=" << n << " threads=" << threads;
      for (int64_t i = 0; i < t; ++i) {
        EXPECT_EQ(seen[static_cast<size_t>(i)].first, n * i / t);
        EXPECT_EQ(seen[static_cast<size_t>(i)].second, n * (i + 1) / t);
      }
    }
  }
  EXPECT_TRUE(chunks_of(0, 4).empty());
}

TEST(ParallelFor, ManyCallsInARowEachSeeAllTheirWork) {
  // The kept threads take part in call after call; a chunk lost or run twice shows in a sum.
  std::vector<int64_t> v(4096);
  std::iota(v.begin(), v.end(), 0);
  const int64_t want = std::accumulate(v.begin(), v.end(), int64_t{0});
  for (int call = 0; call < 2000; ++call) {
    std::atomic<int64_t> sum{0};
    parallel_for(static_cast<int64_t>(v.size()), 0, [&](int64_t lo, int64_t hi) {
      int64_t s = 0;
      for (int64_t i = lo; i < hi; ++i) s += v[static_cast<size_t>(i)];
      sum += s;
    });
    ASSERT_EQ(sum.load(), want) << "call " << call;
  }
}

TEST(ParallelFor, ACallFromInsideAChunkRunsAllOfItsOwnChunks) {
  std::atomic<int64_t> cells{0};
  parallel_for(8, 4, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i)
      parallel_for(100, 3, [&](int64_t a, int64_t b) { cells += b - a; });
  });
  EXPECT_EQ(cells.load(), 800);
}

TEST(ParallelFor, CallsFromSeveralThreadsAtOnce) {
  std::atomic<int64_t> cells{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 4; ++c)
    callers.emplace_back([&] {
      for (int call = 0; call < 200; ++call) parallel_for(1000, 0, [&](int64_t lo, int64_t hi) { cells += hi - lo; });
    });
  for (auto& t : callers) t.join();
  EXPECT_EQ(cells.load(), 4 * 200 * 1000);
}

TEST(ParallelFor, AChunksExceptionReachesTheCallerAfterEveryChunkRan) {
  std::atomic<int> ran{0};
  EXPECT_THROW(parallel_for(6, 6,
                            [&](int64_t lo, int64_t) {
                              ++ran;
                              if (lo == 2) throw std::runtime_error("chunk 2");
                            }),
               std::runtime_error);
  EXPECT_EQ(ran.load(), 6);
  // And the threads are free for the next call.
  EXPECT_EQ(chunks_of(10, 0).size(), static_cast<size_t>(std::min(10, resolve_threads(0))));
}

}  // namespace
}  // namespace cktune
