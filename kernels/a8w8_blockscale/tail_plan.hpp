#pragma once
// The wgmma kernels' tails (wgmma.cuh, wgmma_swap.cuh): the persistent prefill kernel's split tail (wgmmap2t: which
// tiles past the last whole wave are split along K, into how many pieces, and which k-blocks and tile each CTA's piece
// takes) and the rows of the last M tile's x box. Plain integer code with no vendor header, so that the unit tests
// check it on the host (tests/unit/kernels/a8w8_blockscale/tail_plan_test.cpp) and the kernels, their launches and
// workspace_bytes() share it.
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

// Rows of x's TMA box for the last of the M tiles of `tile` rows: the rows it holds, rounded up to 8 (the tile's when
// M fills it). A box that reaches past the matrix's last row costs the TMA unit time for its zero fill: decode at
// M = 16 in a 64-row tile ran up to 2x slower that way (docs/perf.md, 2026-12-02). The shared-memory rows a shorter box
// leaves out keep whatever the stage held before; they feed only output rows past M, which are never stored.
CKTUNE_HD int x_tail_rows(int M, int tile) {
  const int r = (M % tile + 7) / 8 * 8;
  return r == 0 || r > tile ? tile : r;
}

}  // namespace cktune::kernels::a8w8_blockscale::detail
