#pragma once
// CPU implementations of a8w8_blockscale (both weight layouts): the CPU backend's candidates.
// They accumulate in fp32 like the GPU kernels and write bf16. The algorithms differ in how they
// use caches and threads, so which one is fastest depends on the shape:
//   Naive  - row by row, every operand decoded on the fly; no buffers, so it wins on tiny shapes.
//   Tiled  - tile_m x tile_n output tiles; per 128-wide K block the weight panel is decoded once
//            (transposed, so the inner loop is a contiguous multiply-add over tile_n) and reused by
//            tile_m rows; threads take whole tiles. Wins when M*N offers enough tiles.
//   SplitK - the K blocks are split into split_k contiguous ranges computed independently (threads
//            over ranges x tiles), then reduced in range order (deterministic). Wins when M*N is
//            small and K large (decode shapes), where Tiled has too few tiles to feed the threads.
//   Blocked- Tiled's tiles and per-tile decoding, but the multiply-adds of each 128-wide K block run in
//            a register-blocked micro-kernel: 4 rows x 8 columns held in SIMD registers, one broadcast of
//            X and two vector loads of the W panel per k (Tiled keeps its running sums in memory: a load
//            and a store per 4 multiply-adds). Same summation order as Tiled, same bits. Wins once the
//            multiply-adds matter (M from ~16); at decode M the W decode dominates and its wider
//            panels (8-column padding, tile_n beyond L1) make it no faster than Tiled m16n64.
//   pack   - (Tiled/SplitK) decode X and W once up front into fp32 (W in tile_n-wide panels) instead
//            of per tile: costs (M+N)*K decodes and memory, saves ~N/tile_n + M/tile_m repeated
//            decodes of every operand. Wins for large M and N, loses for small M.
// A planted bug (tests and fault injection only) turns an instance into a realistic wrong kernel.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cktune/core/names.hpp"
#include "cktune/ref/gemm.hpp"

namespace cktune {

enum class CpuGemmAlgo { Naive, Tiled, SplitK, Blocked };
using CpuGemmAlgoName = EnumName<CpuGemmAlgo>;
inline constexpr CpuGemmAlgoName kCpuGemmAlgoNames[] = {
    {CpuGemmAlgo::Naive, "naive"}, {CpuGemmAlgo::Tiled, "tiled"}, {CpuGemmAlgo::SplitK, "splitk"},
    {CpuGemmAlgo::Blocked, "blocked"}};
std::string_view to_string(CpuGemmAlgo a);

// Wrong on purpose, each a bug real kernels have had. Never part of a tuning run's candidate list.
enum class PlantedBug {
  None,
  CorruptRow,    // row M/2 loads its activations one element late (off-by-one pointer)
  MissingKTail,  // the K loop stops one 128-block early (the tail block is dropped)
  PartialWrite,  // the last max(1, M/8) rows are never stored
  FirstLaunchOnly,  // the instance computes in its first launch only; later ones return at once without
                    // writing (state carried between launches, as stale split-K tile counters cause).
                    // The kernel itself computes honestly: the state lives in the instance (family unit).
};
using PlantedBugName = EnumName<PlantedBug>;
inline constexpr PlantedBugName kPlantedBugNames[] = {
    {PlantedBug::None, "none"},
    {PlantedBug::CorruptRow, "corrupt_row"},
    {PlantedBug::MissingKTail, "missing_k_tail"},
    {PlantedBug::PartialWrite, "partial_write"},
    {PlantedBug::FirstLaunchOnly, "first_launch_only"},
};
std::string_view to_string(PlantedBug b);
std::optional<PlantedBug> planted_bug_from_string(std::string_view s);

struct CpuBlockscaleParams {
  CpuGemmAlgo algo = CpuGemmAlgo::Tiled;
  int tile_m = 16;   // Tiled / SplitK / Blocked
  int tile_n = 64;   // Tiled / SplitK / Blocked (Blocked: a multiple of 8)
  int split_k = 1;   // SplitK: number of K ranges (>= 2); must not exceed the number of K blocks
  int threads = 1;   // 0 = every hardware thread
  PlantedBug bug = PlantedBug::None;
  bool pack = false;  // Tiled / SplitK: pre-decode both operands once (needs (M+N)*K*4 bytes <= 2 GiB)
};

// Unique, stable name built from the parameters, e.g. "cpu_bs_tiled_m16n64_t2", "cpu_bs_tiled_m64n128_pk_t0",
// "cpu_bs_splitk4_m8n128_t0" (t0 = all hardware threads), "cpu_bs_blocked_m64n128_t0", "cpu_bs_naive_t1+bug_missing_k_tail".
std::string kernel_name(const CpuBlockscaleParams& p);
// Whether this instance handles the shape/layout; "no" is a NotSupported result, not an error.
bool can_run(const CpuBlockscaleParams& p, int M, int N, int K, bool w_preshuffled = false);
// out: [M, N] bf16. Throws Error when !can_run.
void cpu_a8w8_blockscale(const CpuBlockscaleParams& p, const BlockscaleGemmView& v, uint16_t* out);

// The CPU backend's honest candidates for a8w8_blockscale (planted bugs never appear here).
std::vector<CpuBlockscaleParams> cpu_blockscale_candidates();

// a8w8 per-token / per-channel (int8 or fp8; plain or preshuffled weights) through the same
// algorithms and parameters: the scale product x_scale[m] * w_scale[n] is applied per 128-K block
// exactly as the blockscale scales are. Candidates: cpu_blockscale_candidates(); can_run is shared.
// Names: "cpu_a8w8_tiled_m16n64_t2", ... (kernel_name with the family prefix swapped).
std::string ptpc_kernel_name(const CpuBlockscaleParams& p);
void cpu_a8w8_ptpc(const CpuBlockscaleParams& p, const PtpcGemmView& v, uint16_t* out);

}  // namespace cktune
