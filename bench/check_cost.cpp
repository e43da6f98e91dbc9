// Host time of one output check as `tune` makes it on the GPU backend, for the block-scale grid's shapes: the
// comparison of the reference against the output read back (all rows where the reference holds all of them, else
// the sampled rows with the unwritten count taken from the device), with the default thread count, with every
// hardware thread and with one; and an empty parallel_for over every hardware thread (the threads' wake-up). It is
// the part of tune's "check" phase that is not the GPU's or the copies' (docs/perf.md).
// Usage: check_cost [reps]
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "cktune/engine/backend.hpp"
#include "cktune/engine/policy.hpp"
#include "cktune/numerics/bf16.hpp"
#include "cktune/numerics/parallel.hpp"
#include "cktune/verify/check.hpp"

namespace {

// The GPU backend's reference budget (GpuBackend's constructor, src/backends/gpu_backend.cpp); the rows it checks
// come from the engine's own rule, reference_rows().
cktune::DevicePolicy gpu_reference_policy() {
  cktune::DevicePolicy p;
  p.reference_macs_budget = 2e9;
  p.min_sampled_rows = 8;
  p.max_sampled_rows = 64;
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace cktune;
  const int reps = argc > 1 ? std::atoi(argv[1]) : 200;
  std::printf("hardware threads: %u; median of %d checks, microseconds\n", std::thread::hardware_concurrency(), reps);
  const int hw = resolve_threads(0);
  std::printf("%6s %6s %6s %6s %10s %10s %10s %10s\n", "M", "N", "K", "rows", "default", "all", "one", "pf_empty");
  const std::int64_t ms[] = {1, 16, 64, 128, 512, 8192};
  const std::int64_t nk[][2] = {{2112, 7168}, {4096, 7168}, {7168, 2048}, {7168, 16384}, {24576, 1536}, {32768, 512}};
  for (const auto& p : nk)
    for (std::int64_t m : ms) {
      const std::int64_t n = p[0], k = p[1];
      const std::vector<std::int64_t> sampled =
          reference_rows(m, static_cast<double>(n) * static_cast<double>(k), gpu_reference_policy(), 1);
      const bool full = sampled.empty();
      const std::int64_t rows = full ? m : static_cast<std::int64_t>(sampled.size());
      std::vector<float> ref(static_cast<size_t>(rows * n));
      std::vector<std::uint16_t> out(ref.size());
      for (size_t i = 0; i < ref.size(); ++i) {
        ref[i] = static_cast<float>(static_cast<int>(i % 977) - 488) * 0.01f;
        out[i] = float_to_bf16(ref[i]);
      }
      double med[3];
      const int thread_counts[3] = {0, hw, 1};
      for (int i = 0; i < 3; ++i) {
        const int threads = thread_counts[i];
        std::vector<double> us;
        for (int r = -1; r < reps; ++r) {  // r = -1: untimed, the buffers' first touch
          const auto t0 = std::chrono::steady_clock::now();
          const CheckResult c = full ? check_output(ref.data(), out.data(), m, n, Tolerance{}, threads)
                                     : check_gathered_rows(ref.data(), out.data(), sampled, m, n, 0, Tolerance{}, threads);
          if (r >= 0) us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
          if (c.verdict != Verdict::Passed) {
            std::fprintf(stderr, "check_cost: %lldx%lld did not pass: %s\n", static_cast<long long>(m),
                         static_cast<long long>(n), c.reason.c_str());
            return 1;
          }
        }
        std::nth_element(us.begin(), us.begin() + reps / 2, us.end());
        med[i] = us[static_cast<size_t>(reps / 2)];
      }
      std::vector<double> us;  // an empty parallel_for over every hardware thread: the threads' start and join
      for (int r = 0; r < reps; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        parallel_for(1 << 20, 0, [](std::int64_t, std::int64_t) {});
        us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
      }
      std::nth_element(us.begin(), us.begin() + reps / 2, us.end());
      std::printf("%6lld %6lld %6lld %6lld %10.1f %10.1f %10.1f %10.1f\n", static_cast<long long>(m),
                  static_cast<long long>(n), static_cast<long long>(k), static_cast<long long>(rows), med[0], med[1], med[2],
                  us[static_cast<size_t>(reps / 2)]);
    }
  return 0;
}
