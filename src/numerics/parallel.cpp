#include "cktune/numerics/parallel.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace cktune {

int resolve_threads(int requested) {
  if (requested > 0) return requested;
  // Asked once: glibc reads /sys for it, ~6 us a call, more than a small output's whole comparison.
  static const int hw = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  return hw;
}

namespace {

// One call's chunks: chunk i is [n*i/t, n*(i+1)/t), whichever thread runs it, so a result never depends on
// which thread took which chunk. Threads take chunk numbers from `next` until none is left.
struct Batch {
  int64_t n = 0, t = 0;
  const std::function<void(int64_t, int64_t)>* fn = nullptr;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> done{0};
  std::exception_ptr first_error;
  std::mutex error_mutex;

  // Runs chunks until none is left.
  void work() {
    int64_t finished = 0;
    for (int64_t c; (c = next.fetch_add(1, std::memory_order_relaxed)) < t; ++finished) {
      try {
        (*fn)(n * c / t, n * (c + 1) / t);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!first_error) first_error = std::current_exception();
      }
    }
    if (finished > 0) done.fetch_add(finished, std::memory_order_acq_rel);
  }
};

// Threads started once a process and kept, sleeping between calls: starting and joining 15 threads a call took
// 345-492 us on a 16-core GPU host, more than the comparison of a small output takes (bench/check_cost.cpp,
// docs/perf.md 2026-12-02 16:45); waking the kept ones takes about a microsecond (tens after a long sleep).
// One call at a time uses them; a call made while they are busy (from another thread, or from inside a chunk)
// starts threads of its own as before. The threads are never joined: they sleep until the process exits.
class Pool {
 public:
  static Pool* get() {
    static Pool* pool = new Pool(resolve_threads(0) - 1);  // leaked on purpose: no destructor races with exit()
    return pool->pid_ == ::getpid() ? pool : nullptr;      // a forked child has none of the parent's threads
  }

  // Runs the batch on the caller and up to t-1 of the pool's threads; false (nothing run) when the pool is busy.
  bool run(Batch& b) {
    if (busy_.exchange(true, std::memory_order_acquire)) return false;
    {
      std::lock_guard lock(m_);
      batch_ = &b;
      ++generation_;
    }
    wake_.notify_all();
    b.work();
    std::unique_lock lock(m_);
    // Every chunk done, and no pool thread still holding the batch (it lives on the caller's stack).
    finished_.wait(lock, [&] { return b.done.load(std::memory_order_acquire) == b.t && inside_ == 0; });
    batch_ = nullptr;
    lock.unlock();
    busy_.store(false, std::memory_order_release);
    return true;
  }

  int threads() const { return static_cast<int>(workers_); }

 private:
  explicit Pool(int workers) : pid_(::getpid()), workers_(std::max(0, workers)) {
    for (int i = 0; i < workers_; ++i) std::thread([this] { loop(); }).detach();
  }

  void loop() {
    std::uint64_t seen = 0;
    std::unique_lock lock(m_);
    for (;;) {
      wake_.wait(lock, [&] { return generation_ != seen && batch_ != nullptr; });
      seen = generation_;
      Batch* b = batch_;
      ++inside_;
      lock.unlock();
      b->work();
      lock.lock();
      --inside_;
      finished_.notify_all();
    }
  }

  const pid_t pid_;
  const int workers_;
  std::atomic<bool> busy_{false};  // set by the one call using the pool (a flag, not a mutex: a chunk may call again)
  std::mutex m_;
  std::condition_variable wake_, finished_;
  Batch* batch_ = nullptr;
  std::uint64_t generation_ = 0;
  int inside_ = 0;
};

void run_with_new_threads(Batch& b) {
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(b.t - 1));
  for (int64_t i = 1; i < b.t; ++i) threads.emplace_back([&b] { b.work(); });
  b.work();
  for (auto& th : threads) th.join();
}

}  // namespace

void parallel_for(int64_t n, int threads, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  const int64_t t = std::min<int64_t>(resolve_threads(threads), n);
  if (t <= 1) {
    fn(0, n);
    return;
  }
  Batch b;
  b.n = n;
  b.t = t;
  b.fn = &fn;
  Pool* pool = Pool::get();
  if (pool == nullptr || pool->threads() + 1 < t || !pool->run(b)) run_with_new_threads(b);
  if (b.first_error) std::rethrow_exception(b.first_error);
}

}  // namespace cktune
