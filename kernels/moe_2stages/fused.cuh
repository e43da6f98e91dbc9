#pragma once
// The one-launch decode kernel of fused MoE (moe_2stages.hpp, "One launch for decode").
//
// Grid (ctas, tokens*topk): the `ctas` CTAs of row y (a "unit") take the y-th distinct expert of
// topk_ids in order of first use (units past the number of distinct experts exit at once), with every
// routed (token, slot) of that expert as a column of an 8-wide MMA tile. CTA `rank` of the unit owns
//   stage 1: gate rows [rank*rg, rank*rg + rg) and the up rows that pair with them (rg = inter/ctas),
//   stage 2: output columns [rank*rd, rank*rd + rd) (rd = model_dim/ctas).
// Warp 8 is the producer: one thread streams the CTA's slices of w1 and then of w2 through a ring of
// 16 KiB slots with TMA (3-D boxes of several 128-byte k-blocks, 128-byte swizzle). It starts once the
// consumers' own few loads (the tokens' rows, the scales) are issued, so that they do not queue behind the
// stream, and it does not wait for stage 1 to end before it loads stage 2's weights.
// Warps 0..7 consume, in fp32 promoted once per 128-K block (weight scale x token scale):
//   Stage 1 (the fp8 16x8x32 warp MMA, weight rows on its 16-row side, tokens on its 8-wide side): a chunk
//   holds 8 (16-row group, k-block) pairs, one a warp, and each warp takes two chunks at a time (two
//   independent MMA chains); the warps that share a row group are summed in a fixed order afterwards,
//   gated (SiLU(gate) * up, times the routed weight when doweight_stage1), rounded to bf16 and written to
//   `a` (which the checks read too). Each CTA then counts itself in at its unit's arrival count and waits
//   until all of the unit have (why_not keeps the grid within one CTA an SM, so all of it is resident at
//   once), reads the unit's full rows back from L2 and re-quantises them per 1x128 with the arithmetic of
//   quantize_a_kernel. (Thread-block clusters would do this exchange in hardware, but a cluster must fit
//   one GPC: on an H200 only 7 clusters of 16 CTAs, 15 of 8 or 30 of 4 are resident at once at one CTA an
//   SM, one short of the 128 CTAs these launches want, and the last cluster ran as a second wave.)
//   Stage 2 (wgmma m64n8k32): a chunk is 64 rows of w2 x 2 k-blocks; warpgroup wg takes the 64-row groups
//   g = wg mod 2; each result times its routed weight goes to y_slots as bf16 (as the per-slot stage 2).
// Then per token the CTA whose add of one to fused_counts[token*16 + rank] completes the token's
// slots (every slot with a valid expert) sums y_slots over the slots in slot order, in fp32, into that
// slice of `out`, and sets the count back to zero: no atomics on data, a fixed order, no zeroing launch.
// A CTA's phases at 1 DeepSeek-V3 token (16 CTAs an expert, H200; docs/perf.md): routing done at 1.7 us,
// stage 1 streamed by 8.8, rows exchanged by 10.9, stage 2 by 14.5, the slot sums by 16.1.
#include <cstdint>

#include "../common/arch_sm90.hpp"
#include "../common/host_device.hpp"
#include "../common/numeric.hpp"
#include "../common/wgmma_block.hpp"
#include "fused_geom.hpp"
#include "moe_2stages.hpp"
#include "stage_math.cuh"

#if defined(CKTUNE_CUDA)
#include <cuda.h>
#include <cuda_fp8.h>
#endif

namespace cktune::kernels::moe_2stages::detail {

static_assert(kFusedCols == kFusedMaxTokens, "an expert has at most one row a token");

#if defined(CKTUNE_CUDA)
template <int C, int NS, int KB2>
__global__ void __launch_bounds__(kFusedThreads, 1)
    fused_kernel(const __grid_constant__ CUtensorMap map1, const __grid_constant__ CUtensorMap map2, const Args a) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 900) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace cktune::gpu::sm90;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = align_smem<1024>(smem_raw);
  const int D = a.model_dim, I = a.inter_dim, KB = D / 128, topk = a.topk;
  const FusedGeom g = fused_geom(C, D, I);
  const int x_rows = fused_x_rows(a.tokens);
  const FusedLayout L = fused_layout(NS, D, I, x_rows);
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + L.bars);
  uint64_t* empty = full + NS;
  uint8_t* xsm = smem + L.x;
  float* xs = reinterpret_cast<float*>(smem + L.xs);
  float* w1s = reinterpret_cast<float*>(smem + L.w1s);
  float* w2s = reinterpret_cast<float*>(smem + L.w2s);
  float* hred = reinterpret_cast<float*>(smem + L.hred);
  uint16_t* act = reinterpret_cast<uint16_t*>(smem + L.act);
  uint8_t* aqs = smem + L.aq;
  int* sids = reinterpret_cast<int*>(smem + L.ids);
  float* sweights = reinterpret_cast<float*>(smem + L.weights);
  float* ascale = reinterpret_cast<float*>(smem + L.as);
  int* route = reinterpret_cast<int*>(smem + L.route);
  int* rpair = route + 2;
  float* rweight = reinterpret_cast<float*>(route + 2 + kFusedCols);
  int* rlast = route + 2 + 2 * kFusedCols;
  unsigned* seen = reinterpret_cast<unsigned*>(smem + L.seen);

  // The warp index through warp_uniform: stage 2 issues its wgmma under a branch on it, which ptxas otherwise takes for
  // divergent and serialises (C7520). H200, DeepSeek-V3 TP8, two rounds against the plain index: 1 token 0.970-0.981,
  // 2 tokens 0.970-0.978, 4 tokens 0.999-1.000 (docs/perf.md, 2026-11-29 22:10).
  const int tid = threadIdx.x, warp = warp_uniform(tid >> 5), lane = tid & 31;
  const int rank = static_cast<int>(blockIdx.x);
  const int unit = static_cast<int>(blockIdx.y);
  if (tid == 0) {
    for (int s = 0; s < NS; ++s) {
      mbar_init(&full[s], 1);                     // the producer's expect_tx arrival + the bytes
      mbar_init(&empty[s], kFusedConsumerWarps);  // one arrival a consumer warp
    }
    fence_barrier_init();
  }
  if (tid == kFusedConsumerWarps * 32) {
    tma_prefetch_desc(&map1);
    tma_prefetch_desc(&map2);
  }
  gpu::follow_previous_grid();  // topk_ids may come from the kernel before

  // Routing (warp 0): this unit's expert = the unit-th distinct expert in order of first use, and its
  // routed rows in (token, slot) order. Every CTA of the unit finds the same.
  if (warp == 0) {
    const int P = a.tokens * topk;
    for (int i = lane; i < 128; i += 32) seen[i] = 0u;
#pragma unroll 4
    for (int q = lane; q < P; q += 32) {  // the loads of a few passes in flight together
      sids[q] = a.topk_ids[q];
      sweights[q] = a.topk_weights[q];
    }
    __syncwarp();
    int units = 0, expert = -1;
    for (int base = 0; base < P; base += 32) {
      const int q = base + lane;
      const int e = q < P ? sids[q] : -1;
      const bool valid = q < P && e >= 0 && e < a.experts;
      const unsigned same = static_cast<unsigned>(gpu::match_any(valid ? static_cast<unsigned>(e) : 0x80000000u | lane));
      const bool first = valid && __ffs(same) - 1 == lane;
      const bool leader = first && ((seen[e >> 5] >> (e & 31)) & 1u) == 0u;
      const unsigned ballot = __ballot_sync(0xffffffffu, leader);
      if (leader && units + __popc(ballot & ((1u << lane) - 1u)) == unit) expert = e;
      __syncwarp();
      if (first) atomicOr(&seen[e >> 5], 1u << (e & 31));
      __syncwarp();
      units += __popc(ballot);
    }
    expert = __reduce_max_sync(0xffffffffu, expert);
    int m = 0;
    if (expert >= 0)
      for (int base = 0; base < P; base += 32) {
        const int q = base + lane;
        const bool hit = q < P && sids[q] == expert;
        const unsigned ballot = __ballot_sync(0xffffffffu, hit);
        const int pos = m + __popc(ballot & ((1u << lane) - 1u));
        if (hit && pos < kFusedCols) {
          rpair[pos] = q;
          rweight[pos] = sweights[q];
        }
        m += __popc(ballot);
      }
    if (lane == 0) {
      route[0] = expert;
      route[1] = m < kFusedCols ? m : kFusedCols;  // more would be an expert twice in a token's top-k
    }
  }
  __syncthreads();
  const int e = route[0], m = route[1];
  if (e < 0) return;  // the whole unit: fewer distinct experts than units

  if (warp == kFusedConsumerWarps) {
    // Producer: it does not wait for stage 1 to end before it streams stage 2's weights. It starts once the
    // consumers' few loads are on their way, so that they do not queue behind the stream.
    named_barrier_sync(2, kFusedThreads);
    if (lane == 0) {
      int n = 0;
      auto slot = [&](int& s) {
        s = n % NS;
        if (n >= NS) mbar_wait(&empty[s], ((n / NS) - 1) & 1);
      };
      const int row1 = e * 2 * I + rank * g.rg;
      const uint32_t bytes1 = static_cast<uint32_t>(2 * g.rg * g.nk1 * 128);
      for (int c = 0; c < g.chunks1; ++c, ++n) {
        int s;
        slot(s);
        mbar_expect_tx(&full[s], bytes1);
        const uint32_t dst = smem_u32(smem + s * kFusedSlot);
        tma_load_3d(dst, &map1, &full[s], 0, row1, c * g.nk1);
        tma_load_3d(dst + bytes1 / 2, &map1, &full[s], 0, row1 + I, c * g.nk1);
      }
      const int row2 = e * D + rank * g.rd;
      for (int c = 0; c < g.chunks2; ++c, ++n) {
        int s;
        slot(s);
        mbar_expect_tx(&full[s], kFusedSlot);  // a box is 64 rows x 2 k-blocks (past the end: zeros)
        tma_load_3d(smem_u32(smem + s * kFusedSlot), &map2, &full[s], 0, row2 + (c / g.cpg2) * 64, (c % g.cpg2) * 2);
      }
    }
    return;
  }

  // Consumers (256 threads; named barrier 1).
  constexpr int kCT = kFusedConsumerWarps * 32;
  const int g4 = lane >> 2, t4 = lane & 3;
  {
    // The tokens' rows and scales and the expert's scales, all in flight at once (one memory latency).
    const uint32_t xs_base = smem_u32(xsm);
    for (int r = 0; r < x_rows; ++r) {
      const uint8_t* src = a.xq + static_cast<size_t>(r < m ? rpair[r] / topk : 0) * D;
      for (int c = tid; c < D / 16; c += kCT)  // rows past m: zeros, so that their columns stay finite
        cp_async_16(xs_base + r * L.x_pitch + c * 16, src + c * 16, r < m ? 16 : 0);
    }
    for (int r = 0; r < kFusedCols; ++r) {
      const float* src = a.x_scale + static_cast<size_t>(r < m ? rpair[r] / topk : 0) * KB;
      for (int kb = tid; kb < KB; kb += kCT) cp_async_4(smem_u32(xs + r * KB + kb), src + kb, r < m ? 4 : 0);
    }
    const int n1 = (2 * I / 128) * KB, n2 = (D / 128) * KB2;
    for (int i = tid; i < n1; i += kCT) cp_async_4(smem_u32(w1s + i), a.w1_scale + static_cast<size_t>(e) * n1 + i, 4);
    for (int i = tid; i < n2; i += kCT) cp_async_4(smem_u32(w2s + i), a.w2_scale + static_cast<size_t>(e) * n2 + i, 4);
    cp_async_commit();
    named_barrier_arrive(2, kFusedThreads);  // the producer may start
    cp_async_wait<0>();
  }
  named_barrier_sync(1, kCT);

  // Stage 1: warp = (16-row group grp, k-block kq of each chunk). Chunks are taken two at a time, so that
  // each warp has two independent MMA chains in flight.
  const int gate_groups = g.g1 / 2;
  const bool act1 = warp < g.g1 * g.nk1;
  const int grp = warp % g.g1, kq = warp / g.g1;
  const int half = grp >= gate_groups ? 1 : 0;
  const int rrow = (grp - half * gate_groups) * 16;
  const int srow1 = (half * I + rank * g.rg + rrow) / 128;
  const uint8_t* xrow = xsm + (g4 < x_rows ? g4 : x_rows - 1) * L.x_pitch + t4 * 4;  // rows past x_rows: unused columns
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  int n = 0;  // chunks consumed (the producer's count)
  for (int c = 0; c < g.chunks1; c += 2, n += 2) {
    const bool two = c + 1 < g.chunks1;
    const int s0 = n % NS, s1 = two ? (n + 1) % NS : s0;
    mbar_wait(&full[s0], (n / NS) & 1);
    if (two) mbar_wait(&full[s1], ((n + 1) / NS) & 1);
    if (act1) {
      float part[2][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 0.f}};
      const uint32_t unit_ofs = ((half * g.nk1 + kq) * g.rg) * 128;
      const uint32_t base[2] = {smem_u32(smem + s0 * kFusedSlot) + unit_ofs, smem_u32(smem + s1 * kFusedSlot) + unit_ofs};
      const int kb[2] = {c * g.nk1 + kq, (two ? c + 1 : c) * g.nk1 + kq};
#pragma unroll
      for (int ks = 0; ks < 4; ++ks)
#pragma unroll
        for (int j = 0; j < 2; ++j) {
          uint32_t af[4];
          load_a_frag(base[j], rrow, ks, lane, af);
          const uint8_t* xb = xrow + kb[j] * 128 + ks * 32;
          mma_e4m3_16832(part[j], af, *reinterpret_cast<const uint32_t*>(xb), *reinterpret_cast<const uint32_t*>(xb + 16));
        }
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        const float sw = (j == 0 || two) ? w1s[srow1 * KB + kb[j]] : 0.f;  // a lone last chunk counts once
        const float sc0 = sw * xs[(2 * t4) * KB + kb[j]], sc1 = sw * xs[(2 * t4 + 1) * KB + kb[j]];
        acc[0] = fmaf(part[j][0], sc0, acc[0]);
        acc[1] = fmaf(part[j][1], sc1, acc[1]);
        acc[2] = fmaf(part[j][2], sc0, acc[2]);
        acc[3] = fmaf(part[j][3], sc1, acc[3]);
      }
    }
    __syncwarp();
    if (lane == 0) {
      mbar_arrive(&empty[s0]);
      if (two) mbar_arrive(&empty[s1]);
    }
    if (!two) n -= 1;
  }
  if (act1) {
    float* h = hred + warp * 16 * kFusedCols;
    h[g4 * kFusedCols + 2 * t4] = acc[0];
    h[g4 * kFusedCols + 2 * t4 + 1] = acc[1];
    h[(g4 + 8) * kFusedCols + 2 * t4] = acc[2];
    h[(g4 + 8) * kFusedCols + 2 * t4 + 1] = acc[3];
  }
  named_barrier_sync(1, kCT);

  // Gate, round, publish to `a`.
  for (int i = tid; i < g.rg * kFusedCols; i += kCT) {
    const int j = i / kFusedCols, col = i % kFusedCols;
    if (col >= m) continue;
    const int gg = j / 16, jr = j % 16;
    float gs = 0.f, us = 0.f;
    for (int k = 0; k < g.nk1; ++k) {
      gs += hred[((gg + k * g.g1) * 16 + jr) * kFusedCols + col];
      us += hred[((gate_groups + gg + k * g.g1) * 16 + jr) * kFusedCols + col];
    }
    float v = silu(gs) * us;
    if (a.doweight_stage1) v *= rweight[col];
    a.a[static_cast<size_t>(rpair[col]) * I + rank * g.rg + j] = gpu::f32_to_bf16_bits(v);
  }
  // The unit's exchange: count in, wait for the whole unit, read its rows back.
  int* arrived = a.fused_counts + static_cast<size_t>(a.tokens) * kFusedMaxCtas;
  int* left = arrived + static_cast<size_t>(a.tokens) * topk;
  named_barrier_sync(1, kCT);
  if (tid == 0) {
    __threadfence();  // this CTA's rows of `a` before its count
    atomicAdd(&arrived[unit], 1);
    while (ld_acquire_gpu(&arrived[unit]) < C) {
    }
  }
  named_barrier_sync(1, kCT);
  for (int i = tid; i < m * (I / 8); i += kCT) {
    const int r = i / (I / 8), c = i % (I / 8);
    *reinterpret_cast<uint4*>(act + r * I + c * 8) =
        __ldcg(reinterpret_cast<const uint4*>(a.a + static_cast<size_t>(rpair[r]) * I) + c);
  }
  named_barrier_sync(1, kCT);
  if (tid == 0 && atomicAdd(&left[unit], 1) == C - 1) {  // the unit's last reader: counts back to zero
    arrived[unit] = 0;
    left[unit] = 0;
  }

  // Re-quantise the m rows per 1x128 (quantize_a_kernel's arithmetic); rows past m are zero.
  for (int job = warp; job < kFusedCols * KB2; job += kFusedConsumerWarps) {
    const int r = job / KB2, kb = job % KB2;
    uint8_t* dst = aqs + kb * 1024 + swz<128>(r, lane >> 2) + (lane & 3) * 4;
    if (r >= m) {
      *reinterpret_cast<uint32_t*>(dst) = 0u;
      if (lane == 0) ascale[r * 4 + kb] = 0.f;
      continue;
    }
    const uint16_t* src = act + r * I + kb * 128 + lane * 4;
    float v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) v[k] = gpu::bf16_bits_to_f32(src[k]);
    float scale;
    *reinterpret_cast<uint32_t*>(dst) = quantize_1x128(v, scale);
    if (lane == 0) ascale[r * 4 + kb] = scale;
  }
  fence_proxy_async_smem();  // the rows are wgmma's operand
  named_barrier_sync(1, kCT);

  // Stage 2 on wgmma (m64n8k32): 64-row groups of w2 (A) against the 8 rows' re-quantised activations (B),
  // a fresh partial per k-block promoted with its scales; warpgroup wg takes the groups g2 = wg mod 2.
  const int wg = warp / 4, wrow = (warp % 4) * 16 + g4;  // this thread's first row in a group (and +8)
  const int c0 = 2 * t4, c1 = 2 * t4 + 1;
  // The routed weight goes in once: here, unless stage 1 applied it (doweight_stage1).
  const float wt0 = c0 < m ? (a.doweight_stage1 ? 1.f : rweight[c0]) : 0.f;
  const float wt1 = c1 < m ? (a.doweight_stage1 ? 1.f : rweight[c1]) : 0.f;
  uint16_t* y0 = c0 < m ? a.y_slots + static_cast<size_t>(rpair[c0]) * D : nullptr;
  uint16_t* y1 = c1 < m ? a.y_slots + static_cast<size_t>(rpair[c1]) * D : nullptr;
  const uint32_t aq_base = smem_u32(aqs);
  float o[4] = {0.f, 0.f, 0.f, 0.f};
  for (int c = 0; c < g.chunks2; ++c, ++n) {
    const int s = n % NS;
    const int g2 = c / g.cpg2, kp = c % g.cpg2;
    mbar_wait(&full[s], (n / NS) & 1);
    if (g2 % 2 == wg) {
      const uint32_t base = smem_u32(smem + s * kFusedSlot);
      float t[2][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 0.f}};
      const bool second = 2 * kp + 1 < KB2;
      wgmma_block_k128<8>(t[0], base, aq_base + (2 * kp) * 1024);
      if (second) wgmma_block_k128<8>(t[1], base + 64 * 128, aq_base + (2 * kp + 1) * 1024);
      wgmma_wait<0>();
      fence_operands(t[0]);
      fence_operands(t[1]);
      const int n0 = rank * g.rd + g2 * 64 + wrow;  // output columns of this thread's two rows
#pragma unroll
      for (int kk = 0; kk < 2; ++kk) {
        const int kb = 2 * kp + kk;
        if (kb >= KB2) break;
        const float sw0 = w2s[(n0 / 128) * KB2 + kb], sw1 = w2s[((n0 + 8) / 128) * KB2 + kb];
        const float as0 = ascale[c0 * 4 + kb], as1 = ascale[c1 * 4 + kb];
        o[0] = fmaf(t[kk][0], sw0 * as0, o[0]);
        o[1] = fmaf(t[kk][1], sw0 * as1, o[1]);
        o[2] = fmaf(t[kk][2], sw1 * as0, o[2]);
        o[3] = fmaf(t[kk][3], sw1 * as1, o[3]);
      }
      if (kp == g.cpg2 - 1) {  // the group's last k-blocks: its rows are done
        const int lrow = g2 * 64 + wrow;
        if (y0 != nullptr) {
          if (lrow < g.rd) y0[n0] = gpu::f32_to_bf16_bits(o[0] * wt0);
          if (lrow + 8 < g.rd) y0[n0 + 8] = gpu::f32_to_bf16_bits(o[2] * wt0);
        }
        if (y1 != nullptr) {
          if (lrow < g.rd) y1[n0] = gpu::f32_to_bf16_bits(o[1] * wt1);
          if (lrow + 8 < g.rd) y1[n0 + 8] = gpu::f32_to_bf16_bits(o[3] * wt1);
        }
        o[0] = o[1] = o[2] = o[3] = 0.f;
      }
    }
    __syncwarp();
    if (lane == 0) mbar_arrive(&empty[s]);
  }

  // The sum over the slots: the CTA that completes a token's slice adds it up.
  named_barrier_sync(1, kCT);
  if (tid < m) {
    const int t = rpair[tid] / topk;
    int slots = 0;  // the token's slots with an expert (the others add nothing and never count)
    for (int k = 0; k < topk; ++k) {
      const int ek = a.topk_ids[t * topk + k];
      slots += ek >= 0 && ek < a.experts ? 1 : 0;
    }
    __threadfence();  // this CTA's y_slots rows (ordered before by the barrier) before its count
    rlast[tid] = atomicAdd(&a.fused_counts[t * kFusedMaxCtas + rank], 1) == slots - 1 ? 1 : 0;
    __threadfence();  // the other CTAs' rows after their counts
  }
  named_barrier_sync(1, kCT);
  for (int col = 0; col < m; ++col) {
    if (!rlast[col]) continue;
    const int t = rpair[col] / topk;
    for (int i = tid; i < g.rd / 8; i += kCT) {
      const int c = rank * g.rd + i * 8;
      float sum[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
      for (int k = 0; k < topk; ++k) {
        const int ek = a.topk_ids[t * topk + k];
        if (ek < 0 || ek >= a.experts) continue;
        add_bf16x8(sum, __ldcg(reinterpret_cast<const uint4*>(a.y_slots + (static_cast<size_t>(t) * topk + k) * D + c)));
      }
      *reinterpret_cast<uint4*>(a.out + static_cast<size_t>(t) * D + c) = pack_bf16x8(sum);
    }
    if (tid == 0) a.fused_counts[t * kFusedMaxCtas + rank] = 0;
  }
#endif
}
#endif  // CKTUNE_CUDA

}  // namespace cktune::kernels::moe_2stages::detail
