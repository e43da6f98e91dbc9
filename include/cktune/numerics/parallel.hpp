#pragma once
// The one thread-splitting helper the references and CPU kernels share: static contiguous chunks,
// so work placement (and therefore every summation order) is fixed for a given thread count.
#include <cstdint>
#include <functional>

namespace cktune {

// 0 (or negative) means every hardware thread; the answer is at least 1.
int resolve_threads(int requested);

// Calls fn(lo, hi) on `threads` contiguous, nearly equal chunks of [0, n), the calling thread taking
// the first chunk. The first exception thrown by any chunk is rethrown after all have finished.
void parallel_for(int64_t n, int threads, const std::function<void(int64_t lo, int64_t hi)>& fn);

}  // namespace cktune
