#pragma once
// Small device helpers the GPU backend needs around the measured kernels: a spin kernel that keeps the
// GPU busy while the host queues a timed loop, fills for NaN poisoning, and the faults that
// --inject-fault plants on the GPU (a kernel that never ends, corrupted or unwritten outputs).
#include <cstddef>
#include <cstdint>

#include "../common/compat.hpp"

namespace cktune::kernels::util {

// Busy-waits about `microseconds` on one thread block (clock-based), then returns.
gpu::ErrorCode launch_spin(double microseconds, int clock_khz, gpu::Stream stream);
// Never returns: for testing the watchdog (--inject-fault hang@NAME).
gpu::ErrorCode launch_hang(gpu::Stream stream);
// out[i] = value for i in [0, n).
gpu::ErrorCode launch_fill_u16(uint16_t* out, size_t n, uint16_t value, gpu::Stream stream);
// *count (device memory, zeroed here first) := the number of i in [0, n) with in[i] == value.
gpu::ErrorCode launch_count_u16(const uint16_t* in, size_t n, uint16_t value, unsigned long long* count,
                                gpu::Stream stream);
// Every third bf16 value v becomes 1.75 v + 0.5 (what a wrong scale index does).
gpu::ErrorCode launch_corrupt_bf16(uint16_t* out, size_t n, gpu::Stream stream);

}  // namespace cktune::kernels::util
