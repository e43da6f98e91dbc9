#include "util.hpp"

namespace cktune::kernels::util {

namespace {

__global__ void spin_kernel(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

__global__ void hang_kernel(volatile int* never) {
  while (*never == 0) {
  }
}

__global__ void fill_u16_kernel(uint16_t* out, size_t n, uint16_t value) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    out[i] = value;
}

__global__ void count_u16_kernel(const uint16_t* in, size_t n, uint16_t value, unsigned long long* count) {
  unsigned long long c = 0;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    c += in[i] == value;
  if (c != 0) atomicAdd(count, c);
}

__device__ float bf16_bits_to_float(uint16_t b) { return __uint_as_float(static_cast<unsigned>(b) << 16); }
__device__ uint16_t float_to_bf16_bits(float f) {
  unsigned u = __float_as_uint(f);
  u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest even (inputs here are finite)
  return static_cast<uint16_t>(u >> 16);
}

__global__ void corrupt_kernel(uint16_t* out, size_t n) {
  for (size_t i = (blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x) * 3; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x * 3)
    out[i] = float_to_bf16_bits(bf16_bits_to_float(out[i]) * 1.75f + 0.5f);
}

int blocks_for(size_t n) {
  size_t b = (n + 255) / 256;
  return static_cast<int>(b < 4096 ? (b == 0 ? 1 : b) : 4096);
}

}  // namespace

gpu::ErrorCode launch_spin(double microseconds, int clock_khz, gpu::Stream stream) {
  long long cycles = static_cast<long long>(microseconds * (clock_khz > 0 ? clock_khz : 1980000) / 1000.0);
  spin_kernel<<<1, 1, 0, stream>>>(cycles);
  return gpu::get_last_error();
}

gpu::ErrorCode launch_hang(gpu::Stream stream) {
  static int* flag = nullptr;
  if (flag == nullptr) {
    void* p = nullptr;
    if (auto e = gpu::rt::device_malloc(&p, sizeof(int)); e != gpu::kSuccess) return e;
    if (auto e = gpu::rt::memset_async(p, 0, sizeof(int), stream); e != gpu::kSuccess) return e;
    flag = static_cast<int*>(p);
  }
  hang_kernel<<<1, 1, 0, stream>>>(flag);
  return gpu::get_last_error();
}

gpu::ErrorCode launch_fill_u16(uint16_t* out, size_t n, uint16_t value, gpu::Stream stream) {
  fill_u16_kernel<<<blocks_for(n), 256, 0, stream>>>(out, n, value);
  return gpu::get_last_error();
}

gpu::ErrorCode launch_count_u16(const uint16_t* in, size_t n, uint16_t value, unsigned long long* count,
                                gpu::Stream stream) {
  if (auto e = gpu::rt::memset_async(count, 0, sizeof(unsigned long long), stream); e != gpu::kSuccess) return e;
  count_u16_kernel<<<blocks_for(n), 256, 0, stream>>>(in, n, value, count);
  return gpu::get_last_error();
}

gpu::ErrorCode launch_corrupt_bf16(uint16_t* out, size_t n, gpu::Stream stream) {
  corrupt_kernel<<<blocks_for(n / 3 + 1), 256, 0, stream>>>(out, n);
  return gpu::get_last_error();
}

}  // namespace cktune::kernels::util
