// Session 45 probe (not part of the build): how much of HBM can k SMs pull, and how unequal are their ends? k CTAs
// (one an SM: 1024 threads and a shared-memory claim that keeps a second one off the SM) stream the same total of
// 209 MB, either as equal contiguous shares with U 16-byte loads in flight a thread (stream_share) or as 64 KB
// chunks claimed from one counter (stream_claim). Each CTA stamps its start and end with %globaltimer. Answers
// whether the 114-124 SMs a DeepSeek-V3 stage 1 occupies at 8 tokens can read as fast as all 132, and what a
// balanced split would save. Build: nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -cudart=static sm_probe.cu
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

__device__ __forceinline__ uint64_t now_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}

// Dynamic form: the CTAs claim chunks of 64 KB in order from one counter (counter[0], zeroed before the launch)
// until none is left: the balance a work-stealing stage would reach.
__global__ void __launch_bounds__(1024, 1) stream_claim(const uint4* __restrict__ src, size_t total16,
                                                        unsigned* counter, uint64_t* stamps) {
  extern __shared__ uint4 hold[];
  __shared__ unsigned chunk;
  const uint64_t t0 = now_ns();
  constexpr size_t kChunk16 = 64 * 1024 / 16;  // 4 loads a thread
  const unsigned chunks = static_cast<unsigned>((total16 + kChunk16 - 1) / kChunk16);
  uint32_t acc = 0;
  for (;;) {
    if (threadIdx.x == 0) chunk = atomicAdd(counter, 1u);
    __syncthreads();
    const unsigned c = chunk;
    __syncthreads();
    if (c >= chunks) break;
    uint4 v[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const size_t j = min(c * kChunk16 + threadIdx.x + static_cast<size_t>(u) * 1024, total16 - 1);
      asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(v[u].x), "=r"(v[u].y), "=r"(v[u].z), "=r"(v[u].w)
                   : "l"(src + j));
    }
#pragma unroll
    for (int u = 0; u < 4; ++u)
      asm volatile("xor.b32 %0, %0, %1;" : "+r"(acc) : "r"(v[u].x ^ v[u].y ^ v[u].z ^ v[u].w));
  }
  if (acc == 0x12345678u) { hold[0].x = acc; counter[1] = hold[0].x; }
  if (threadIdx.x == 0) { stamps[2 * blockIdx.x] = t0; stamps[2 * blockIdx.x + 1] = now_ns(); }
}

template <int U>
__global__ void __launch_bounds__(1024, 1) stream_share(const uint4* __restrict__ src, size_t per_cta16, size_t total16,
                                                     unsigned* sink, uint64_t* stamps) {
  const uint64_t t0 = now_ns();
  extern __shared__ uint4 hold[];  // only to keep one CTA an SM
  const size_t begin = blockIdx.x * per_cta16, end = min(begin + per_cta16, total16);
  uint32_t acc = 0;
  // Loads and their consumers as volatile asm, so that all U loads of a round issue before the first use.
  for (size_t i = begin + threadIdx.x; i < end; i += 1024 * U) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const size_t j = min(i + static_cast<size_t>(u) * 1024, end - 1);
      asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(v[u].x), "=r"(v[u].y), "=r"(v[u].z), "=r"(v[u].w)
                   : "l"(src + j));
    }
#pragma unroll
    for (int u = 0; u < U; ++u)
      asm volatile("xor.b32 %0, %0, %1;" : "+r"(acc) : "r"(v[u].x ^ v[u].y ^ v[u].z ^ v[u].w));
  }
  if (acc == 0x12345678u) { hold[0].x = acc; sink[0] = hold[0].x; }
  __syncthreads();
  if (threadIdx.x == 0) { stamps[2 * blockIdx.x] = t0; stamps[2 * blockIdx.x + 1] = now_ns(); }
}

int main() {
  const size_t total = 114ull * 512 * 7168 / 2 * 1;  // 114 tiles of 256 rows x 7168 bytes (209 MB)
  const size_t total16 = total / 16;
  const int sets = 3;
  std::vector<uint4*> buf(sets);
  for (auto& b : buf) { cudaMalloc(&b, total); cudaMemset(b, 1, total); }
  unsigned* sink; cudaMalloc(&sink, 64);
  uint64_t* stamps; cudaMalloc(&stamps, 2 * 1024 * sizeof(uint64_t));
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const int smem = 120 * 1024;
  // Per launch: event time; from the stamps the CTAs' end times after the earliest start (p50 and max), whose
  // spread is the tail a balanced walk would remove. Medians over 25 launches.
  auto report = [&](const char* what, int U, int k, std::vector<float>& t, std::vector<float>& p50,
                    std::vector<float>& mx) {
    std::sort(t.begin(), t.end()), std::sort(p50.begin(), p50.end()), std::sort(mx.begin(), mx.end());
    const float med = t[t.size() / 2];
    std::printf("%-6s U=%2d k=%3d  median %7.2f us  %.3f TB/s  (min %.2f max %.2f)  CTA ends p50 %.2f max %.2f us\n",
                what, U, k, med, total / med / 1e6, t.front(), t.back(), p50[p50.size() / 2], mx[mx.size() / 2]);
  };
  auto stamp_stats = [&](int k, std::vector<float>& p50, std::vector<float>& mx) {
    std::vector<uint64_t> h(2 * k);
    cudaMemcpy(h.data(), stamps, h.size() * 8, cudaMemcpyDeviceToHost);
    uint64_t start = ~0ull;
    for (int b = 0; b < k; ++b) start = std::min(start, h[2 * b]);
    std::vector<float> ends(k);
    for (int b = 0; b < k; ++b) ends[b] = (h[2 * b + 1] - start) / 1000.f;
    std::sort(ends.begin(), ends.end());
    p50.push_back(ends[k / 2]), mx.push_back(ends.back());
  };
  auto run = [&](auto kernel, int U, int k) {
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    const size_t per = (total16 + k - 1) / k;
    std::vector<float> t, p50, mx;
    for (int it = 0; it < 30; ++it) {
      cudaEventRecord(e0);
      kernel<<<k, 1024, smem>>>(buf[it % sets], per, total16, sink, stamps);
      cudaEventRecord(e1); cudaEventSynchronize(e1);
      float ms; cudaEventElapsedTime(&ms, e0, e1);
      if (it >= 5) t.push_back(ms * 1000), stamp_stats(k, p50, mx);
    }
    report("static", U, k, t, p50, mx);
  };
  auto run_claim = [&](int k) {
    cudaFuncSetAttribute(stream_claim, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    std::vector<float> t, p50, mx;
    for (int it = 0; it < 30; ++it) {
      cudaMemsetAsync(sink, 0, 8);
      cudaEventRecord(e0);
      stream_claim<<<k, 1024, smem>>>(buf[it % sets], total16, sink, stamps);
      cudaEventRecord(e1); cudaEventSynchronize(e1);
      float ms; cudaEventElapsedTime(&ms, e0, e1);
      if (it >= 5) t.push_back(ms * 1000), stamp_stats(k, p50, mx);
    }
    report("claim", 4, k, t, p50, mx);
  };
  std::printf("SMs %d, %.1f MB streamed a launch\n", sms, total / 1e6);
  for (int k : {57, 114, 124, 132}) {
    run(stream_share<4>, 4, k);
    run(stream_share<8>, 8, k);
    run_claim(k);
  }
  const cudaError_t e = cudaGetLastError();
  std::printf("%s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
