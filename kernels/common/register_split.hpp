#pragma once
// The register split of Hopper's warp-specialised kernels, checked at compile time. Plain constexpr, no vendor
// header: the host unit tests include it.

namespace cktune::gpu::sm90 {
// Warp-specialised kernels hand registers from the producer warpgroup to the consumers with setmaxnreg, which moves
// them only within the CTA's own pool: what the launch gave it, the per-thread count ptxas takes from
// __launch_bounds__(threads, min_blocks) (65536 / (threads * min_blocks), a multiple of 8) times the threads. An
// increase beyond what the decreases released waits forever (a 48-register producer beside two 232-register consumer
// warpgroups, 512 > 3 x 168, hung every MoE stage launch: docs/perf.md, 2026-11-30). Checked at compile time.
constexpr int launch_regs(int threads, int min_blocks) { return (65536 / (threads * min_blocks)) & ~7; }
constexpr bool register_split_fits(int threads, int min_blocks, int producer_regs, int consumer_wgs, int consumer_regs) {
  // Above 255 a thread's count is ptxas's own cap, which this rule does not model; the kernels that launch that few
  // threads (one consumer warpgroup, one CTA an SM) keep far inside it (40 + 240 of 2 x 255).
  return launch_regs(threads, min_blocks) > 255 ||
         (consumer_wgs * consumer_regs + producer_regs) * 128 <= launch_regs(threads, min_blocks) * threads;
}
}  // namespace cktune::gpu::sm90
