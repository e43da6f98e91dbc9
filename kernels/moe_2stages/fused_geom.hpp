#pragma once
// The one-launch MoE kernel's geometry (fused.cuh): how a CTA's slices are cut into ring chunks, where each
// region of its shared memory lies, and which sizes it takes. Plain code with no vendor header: the kernel,
// its launch and the unit tests (tests/unit/kernels/moe_2stages/fused_geom_test.cpp) share it.
#include "../common/host_device.hpp"

namespace cktune::kernels::moe_2stages::detail {

constexpr int kFusedSlot = 16384;        // bytes of one ring slot
constexpr int kFusedConsumerWarps = 8;
constexpr int kFusedThreads = (kFusedConsumerWarps + 1) * 32;
constexpr int kFusedCols = 8;            // routed rows an expert holds at most (the MMA's 8-wide side)
constexpr int kFusedMaxPairs = kFusedCols * 64;  // tokens * topk the routing table holds

// How a CTA's slices are cut into ring chunks; the host builds the TMA boxes from the same numbers.
struct FusedGeom {
  int rg = 0;       // gate rows a CTA (as many up rows)
  int g1 = 0;       // 16-row groups of a stage-1 chunk (gate and up)
  int nk1 = 0;      // k-blocks of a stage-1 chunk
  int chunks1 = 0;
  int rd = 0;       // output columns a CTA (w2 rows), in 64-row groups
  int groups2 = 0;
  int cpg2 = 0;     // stage-2 chunks a group: 64 rows x 2 k-blocks each
  int chunks2 = 0;
};

CKTUNE_HD FusedGeom fused_geom(int ctas, int model_dim, int inter_dim) {
  FusedGeom g;
  g.rg = inter_dim / ctas;
  g.g1 = 2 * g.rg / 16;
  const int kb = model_dim / 128;
  g.nk1 = g.g1 > 0 ? kFusedSlot / (2 * g.rg * 128) : 1;
  while (g.nk1 > 1 && kb % g.nk1 != 0) --g.nk1;
  g.chunks1 = g.nk1 > 0 ? kb / g.nk1 : 0;
  g.rd = model_dim / ctas;
  g.groups2 = (g.rd + 63) / 64;
  g.cpg2 = (inter_dim / 128 + 1) / 2;
  g.chunks2 = g.groups2 * g.cpg2;
  return g;
}

// Shared-memory offsets (from the 1024-byte-aligned base).
struct FusedLayout {
  int bars, x, x_pitch, xs, w1s, w2s, hred, act, aq, as, route, ids, weights, seen, total;
};

// x_rows: the tokens' rows kept (min(tokens, 8): an expert has at most one row a token).
CKTUNE_HD int fused_x_rows(int tokens) { return tokens < kFusedCols ? tokens : kFusedCols; }

CKTUNE_HD FusedLayout fused_layout(int stages, int model_dim, int inter_dim, int x_rows) {
  FusedLayout l{};
  const int kb = model_dim / 128, kb2 = inter_dim / 128;
  int o = stages * kFusedSlot;
  // Every region starts on 16 bytes (16-byte accesses), the tokens' rows on 128.
  auto take = [&o](int bytes, int align = 16) {
    o = (o + align - 1) / align * align;
    const int at = o;
    o += bytes;
    return at;
  };
  l.bars = take(2 * stages * 8);
  l.x_pitch = model_dim + 16;  // 16 extra bytes: the 8 rows' fragment loads fall in 32 different banks
  l.x = take(x_rows * l.x_pitch, 128);
  l.xs = take(kFusedCols * kb * 4);
  l.w1s = take((2 * inter_dim / 128) * kb * 4);
  l.w2s = take((model_dim / 128) * kb2 * 4);
  l.hred = take(kFusedConsumerWarps * 16 * kFusedCols * 4);
  l.act = take(kFusedCols * inter_dim * 2);
  l.aq = take(kb2 * 1024, 1024);  // per k-block: the 8 rows' 128 bytes, 128-byte swizzled (wgmma's B)
  l.as = take(kFusedCols * 4 * 4);
  l.route = take((2 + 3 * kFusedCols) * 4);  // expert, rows, then per row: pair, routed weight, last-adder flag
  l.ids = take(kFusedMaxPairs * 4);          // topk_ids and topk_weights, read once
  l.weights = take(kFusedMaxPairs * 4);
  l.seen = take(128 * 4);                    // one bit an expert
  l.total = o + 1024;                        // + the alignment of the base
  return l;
}
constexpr int kFusedMaxExperts = 128 * 32;  // the `seen` bits

// Why these sizes cannot run (nullptr = they can): gate rows a CTA a whole number of 16-row groups and at
// most 8 of them (one warp each), output columns a whole number of 16-row groups, everything within
// `max_smem` bytes of shared memory.
CKTUNE_HD const char* fused_geom_why_not(int ctas, int stages, int tokens, int model_dim, int inter_dim, int max_smem) {
  if (ctas < 1 || inter_dim % ctas != 0 || model_dim % ctas != 0) return "the CTAs do not divide the expert's rows";
  const FusedGeom g = fused_geom(ctas, model_dim, inter_dim);
  if (g.rg % 16 != 0 || g.g1 > 8) return "each CTA's gate rows must be 16, 32, 48 or 64 (inter_dim / ctas)";
  if (g.rd % 16 != 0) return "each CTA's output columns (model_dim / ctas) must be a multiple of 16";
  if (fused_layout(stages, model_dim, inter_dim, fused_x_rows(tokens)).total > max_smem)
    return "the ring and the tokens' rows do not fit in shared memory";
  return nullptr;
}

}  // namespace cktune::kernels::moe_2stages::detail
