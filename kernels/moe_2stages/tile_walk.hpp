#pragma once
// The order in which the persistent wgmma stages (stages_wgmma.cuh) walk their tiles, and the division
// it is built on. Plain integer code with no vendor header, so that the unit tests hold it against plain
// division on the host (tests/unit/kernels/moe_2stages/tile_walk_test.cpp).
#include <cstdint>

#include "../common/host_device.hpp"

namespace cktune::kernels::moe_2stages::detail {

// The high 32 bits of a 32 x 32-bit product: one instruction on the GPU.
CKTUNE_HD uint32_t mul_hi(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __umulhi(a, b);
#else
  return static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32);
#endif
}

// n / d for 0 <= n < 2^31 and a divisor d >= 1 fixed for the kernel: a multiply-high, an add and a shift
// instead of the ~25 instructions of a division by a run-time value (round-up reciprocal: s = ceil(log2 d),
// m = floor(2^32 (2^s - d) / d) + 1, n / d = (mul_hi(n, m) + n) >> s; mul_hi(n, m) < n keeps the sum below
// 2^32).
struct DivBy {
  uint32_t m = 1, s = 0;
  CKTUNE_HD explicit DivBy(uint32_t d) {
    while ((1u << s) < d) ++s;
    m = static_cast<uint32_t>(((1ull << 32) * ((1ull << s) - d)) / d + 1);
  }
  CKTUNE_HD int operator()(int n) const {
    return static_cast<int>((mul_hi(static_cast<uint32_t>(n), m) + static_cast<uint32_t>(n)) >> s);
  }
};

// The persistent walk's tile order: groups of `group` column tiles (the last one may be narrower), and
// within a group block by block, a block's column tiles next to each other. group = col_tiles is
// block after block. Stage 2 finds its next tile's place several times a tile (2..4 k-blocks), so the
// divisions by the run-time sizes are done by DivBy (set up once per kernel).
struct TileAt {
  int block, col;
};
// The walk's formula with a divider for each of its three divisors (DivBy, or plain division).
template <class Div>
CKTUNE_HD TileAt tile_place(int tile, int per_group, int group, int col_tiles, int last_width, const Div& by_per_group,
                            const Div& by_group, const Div& by_last) {
  const int gi = by_per_group(tile), r = tile - gi * per_group;
  const bool last = (gi + 1) * group >= col_tiles;  // the last group may be narrower
  const int width = last ? last_width : group;
  const int b = last ? by_last(r) : by_group(r);
  return {b, gi * group + (r - b * width)};
}
struct PlainDiv {
  int d;
  CKTUNE_HD int operator()(int n) const { return n / d; }
};
struct TileWalk {
  // Column tiles in the last group (1..g): the others hold g each.
  static CKTUNE_HD int last_group_width(int cols, int g) { return cols - (cols - 1) / g * g; }
  int used_blocks, col_tiles, group, per_group, last_width;  // last_width before the dividers (it sizes by_last)
  DivBy by_per_group, by_group, by_last;
  CKTUNE_HD TileWalk(int used, int cols, int g)
      : used_blocks(used), col_tiles(cols), group(g), per_group(g * used),
        last_width(last_group_width(cols, g)), by_per_group(static_cast<uint32_t>(g * (used > 0 ? used : 1))),
        by_group(static_cast<uint32_t>(g)), by_last(static_cast<uint32_t>(last_width)) {}
  CKTUNE_HD TileAt operator()(int tile) const {
    return tile_place(tile, per_group, group, col_tiles, last_width, by_per_group, by_group, by_last);
  }
  // One tile's place by plain division, without the divisors' set-up (three 64-bit divisions): for the routing of a
  // stage 1's first tile (route_first_tile), which needs one place.
  static CKTUNE_HD TileAt place(int tile, int used, int cols, int g) {
    const int last_width = last_group_width(cols, g);
    return tile_place(tile, g * used, g, cols, last_width, PlainDiv{g * (used > 0 ? used : 1)}, PlainDiv{g},
                      PlainDiv{last_width});
  }
};

}  // namespace cktune::kernels::moe_2stages::detail
