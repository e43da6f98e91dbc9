#include "cktune/numerics/parallel.hpp"

#include <algorithm>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace cktune {

int resolve_threads(int requested) {
  if (requested > 0) return requested;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

void parallel_for(int64_t n, int threads, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  const int64_t t = std::min<int64_t>(resolve_threads(threads), n);
  if (t <= 1) {
    fn(0, n);
    return;
  }
  std::exception_ptr first_error;
  std::mutex error_mutex;
  auto run = [&](int64_t lo, int64_t hi) {
    try {
      fn(lo, hi);
    } catch (...) {
      std::lock_guard lock(error_mutex);
      if (!first_error) first_error = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(t - 1));
  for (int64_t i = 1; i < t; ++i) pool.emplace_back(run, n * i / t, n * (i + 1) / t);
  run(0, n / t);
  for (auto& th : pool) th.join();
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace cktune
