#pragma once
// The persistent prefill kernel's split tail (wgmmap2t, wgmma.cuh): which tiles past the last whole wave are split
// along K, into how many pieces, and which k-blocks and tile each CTA's piece takes. Plain integer code with no
// vendor header, so that the unit tests check it on the host (tests/unit/kernels/a8w8_blockscale/tail_plan_test.cpp)
// and the kernel, its launch and workspace_bytes() share it.
#include "../common/host_device.hpp"

namespace cktune::kernels::a8w8_blockscale::detail {

// A persistent launch of `grid` CTAs over `tiles` tiles of KB k-blocks: the tiles past the last whole wave (tiles mod
// grid of them) go in `split` pieces along K to as many CTAs, when that leaves at least two pieces a tile; otherwise
// nothing is split (tail = 0, split = 1). At most one piece a CTA (tail * split <= grid) and a k-block a piece.
struct TailPlan {
  int tail, split;
};
CKTUNE_HD TailPlan tail_plan(int tiles, int grid, int KB) {
  const int r = tiles > grid ? tiles % grid : 0;
  if (r == 0) return {0, 1};
  int split = grid / r;
  if (split > KB) split = KB;
  if (split < 2) return {0, 1};
  return {r, split};
}

// CTA b's piece of the split tail (b < tail * split): tail tile b / split (counted from the first split tile), k-blocks
// [kb0, kb1) of its KB.
struct TailPiece {
  int tile, piece, kb0, kb1;
};
CKTUNE_HD TailPiece tail_piece(const TailPlan& p, int b, int KB) {
  const int piece = b % p.split;
  return {b / p.split, piece, piece * KB / p.split, (piece + 1) * KB / p.split};
}

}  // namespace cktune::kernels::a8w8_blockscale::detail
