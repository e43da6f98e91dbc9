// Every GPU moe_2stages pipeline (sorting + stage 1 + stage 2) against the CPU reference on ragged
// token counts, odd expert counts and both doweight_stage1 settings, with fresh random inputs each run
// (the seed is printed); each pipeline runs twice on the same buffers (no state may carry over).
// Skips without a GPU.
#include <gtest/gtest.h>

#if defined(CKTUNE_WITH_GPU)

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>

#include "backends/gpu_backend.hpp"
#include "cktune/engine/family_unit.hpp"
#include "cktune/engine/policy.hpp"
#include "cktune/gpu/device.hpp"
#include "cktune/gpu/runtime.hpp"
#include "cktune/numerics/bf16.hpp"
#include "cktune/numerics/random.hpp"
#include "kernels/moe_2stages/moe_2stages.hpp"
#include "kernels/moe_2stages/sorting.hpp"

namespace cktune {
namespace {

ProblemKey key(int T, int D, int I, int E, int topk, bool doweight1) {
  return ProblemKey{Family::Moe2Stages,
                    {std::to_string(T), std::to_string(D), std::to_string(I), std::to_string(E), std::to_string(topk),
                     "ActivationType.Silu", "torch.bfloat16", "torch.float8_e4m3fn", "torch.float8_e4m3fn",
                     "QuantType.per_1x128", "1", doweight1 ? "1" : "0"}};
}

namespace km = kernels::moe_2stages;

template <class V>
gpu::DeviceBuffer upload(const V& v, gpu::GpuStream& stream) {
  gpu::DeviceBuffer b(v.size() * sizeof(v[0]));
  b.copy_from_host(v.data(), b.size(), stream);
  return b;
}

// An MoE problem's inputs on the device.
struct DeviceInputs {
  gpu::DeviceBuffer xq, xs, w1q, w1s, w2q, w2s, ids, tw;
  DeviceInputs(const MoeInputs& in, gpu::GpuStream& s)
      : xq(upload(in.xq, s)), xs(upload(in.x_scale, s)), w1q(upload(in.w1q, s)), w1s(upload(in.w1_scale, s)),
        w2q(upload(in.w2q, s)), w2s(upload(in.w2_scale, s)), ids(upload(in.topk_ids, s)),
        tw(upload(in.topk_weights, s)) {}
};

// The inputs sorted by the GPU sorting at block_m `bm`, and the stage arguments that read them: the inputs, the sorted
// rows and the sizes (the stages' outputs are the caller's).
struct DeviceSorted {
  gpu::DeviceBuffer sids, sw, seids, nv, ws, counter;
  km::Args args{};
  DeviceSorted(const DeviceInputs& d, int T, int D, int I, int E, int K, int bm, gpu::GpuStream& stream)
      : sids(km::sort_capacity(T, K, E, bm) * 4), sw(km::sort_capacity(T, K, E, bm) * 4),
        seids(km::sort_max_blocks(T, K, E, bm) * 4), nv(8),
        ws(std::max<size_t>(1, km::sort_workspace_bytes(T, K, E, bm))), counter(256) {
    counter.memset(0, stream);
    km::SortArgs sa;
    sa.topk_ids = d.ids.as<int32_t>();
    sa.topk_weights = d.tw.as<float>();
    sa.sorted_ids = sids.as<int32_t>();
    sa.sorted_weights = sw.as<float>();
    sa.sorted_expert_ids = seids.as<int32_t>();
    sa.num_valid_ids = nv.as<int32_t>();
    sa.tokens = T, sa.topk = K, sa.experts = E, sa.block_m = bm;
    sa.workspace = ws.data();
    sa.workspace_bytes = ws.size();
    EXPECT_EQ(km::sort(sa, gpu::as_stream(stream.native())), gpu::kSuccess);
    args.sorted_ids = sids.as<int32_t>();
    args.sorted_weights = sw.as<float>();
    args.sorted_expert_ids = seids.as<int32_t>();
    args.num_valid_ids = nv.as<int32_t>();
    args.max_blocks = static_cast<int>(km::sort_max_blocks(T, K, E, bm));
    args.tokens = T, args.topk = K, args.model_dim = D, args.inter_dim = I, args.experts = E;
    args.xq = d.xq.as<uint8_t>(), args.x_scale = d.xs.as<float>();
    args.w1q = d.w1q.as<uint8_t>(), args.w1_scale = d.w1s.as<float>();
    args.w2q = d.w2q.as<uint8_t>(), args.w2_scale = d.w2s.as<float>();
    args.topk_ids = d.ids.as<int32_t>();
    args.topk_weights = d.tw.as<float>();
    args.tile_counter = counter.as<int>();
  }
};

TEST(GpuMoe, StageNamesAreUnique) {
  std::set<std::string> names;
  for (auto st : {kernels::moe_2stages::Stage::One, kernels::moe_2stages::Stage::Two})
    for (const auto& p : kernels::moe_2stages::stage_instances(st)) EXPECT_TRUE(names.insert(p.name).second) << p.name;
  for (const auto& p : kernels::moe_2stages::fused_instances()) EXPECT_TRUE(names.insert(p.name).second) << p.name;
  EXPECT_GE(names.size(), 20u);
}

TEST(GpuMoe, StageTwoRefusesAnInterDimItCannotHold) {
  for (const auto& p : km::stage_instances(km::Stage::Two)) {
    EXPECT_NE(km::why_not(p, 16, 7168, 128, 256, 8), nullptr) << p.name;  // one k-block a tile
    EXPECT_NE(km::why_not(p, 16, 7168, 640, 256, 8), nullptr) << p.name;  // five
  }
}

// A stage-2 tile covers model_dim in whole tiles: the 256-column tiles refuse a model_dim that is a multiple of 128
// only, the others take it.
TEST(GpuMoe, StageTwoRefusesAModelDimItsTileDoesNotDivide) {
  int wide = 0;
  for (const auto& p : km::stage_instances(km::Stage::Two)) {
    if (p.engine != km::Engine::Wgmma) continue;
    const char* why = km::why_not(p, 16, 7296, 256, 256, 8);  // 57 * 128
#if defined(CKTUNE_CUDA)
    if (p.tile_n == 256) {
      ++wide;
      EXPECT_NE(why, nullptr) << p.name;
    } else {
      EXPECT_EQ(why, nullptr) << p.name;
    }
#else
    EXPECT_NE(why, nullptr) << p.name;  // HIP: no wgmma
    wide += p.tile_n == 256;
#endif
  }
  EXPECT_GT(wide, 0) << "no 256-column stage 2 in the table";
}

TEST(GpuMoe, OneLaunchRefusesWhatItCannotHold) {
  for (const auto& p : km::fused_instances()) {
    EXPECT_NE(km::fused_why_not(p, 9, 7168, 256, 256, 8), nullptr) << p.name;   // an expert's 9th row
    EXPECT_NE(km::fused_why_not(p, 1, 7168, 640, 256, 8), nullptr) << p.name;   // K = inter past the registers
    EXPECT_NE(km::fused_why_not(p, 1, 7168, 256, 256, 8, 89), nullptr) << p.name;  // no TMA
    EXPECT_NE(km::fused_why_not(p, 1, 7168, 256, 256, 8, 90, 7), nullptr) << p.name;  // not all resident at once
  }
#if defined(CKTUNE_CUDA)  // HIP builds have no implementation: every instance is refused there
  int runnable = 0;
  for (const auto& p : km::fused_instances()) runnable += km::fused_why_not(p, 1, 7168, 256, 256, 8) == nullptr;
  EXPECT_EQ(runnable, static_cast<int>(km::fused_instances().size())) << "DeepSeek-V3 TP8 at 1 token";
#else
  for (const auto& p : km::fused_instances()) EXPECT_NE(km::fused_why_not(p, 1, 7168, 256, 256, 8), nullptr) << p.name;
#endif
}

TEST(GpuMoe, EveryPipelineMatchesTheReference) {
  if (gpu::device_count() == 0) GTEST_SKIP() << "no GPU visible";
  auto backend = make_gpu_backend(0);
  const FamilyUnit& unit = *find_family_unit(Family::Moe2Stages, BackendKind::Gpu);
  const std::uint64_t seed =
      static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  // token, model_dim, inter_dim, experts, topk, doweight_stage1, skewed routing
  const int shapes[][7] = {{1, 1024, 256, 16, 4, 0, 0},  {3, 7168, 256, 256, 8, 0, 0}, {37, 512, 384, 8, 2, 1, 0},
                           {300, 768, 512, 32, 8, 0, 0}, {129, 1024, 256, 4, 4, 0, 0}, {1000, 512, 256, 64, 6, 1, 0},
                           {64, 1024, 256, 32, 8, 0, 1}, {257, 512, 384, 128, 8, 1, 1},
                           // the one-launch kernel (<= 8 tokens, tokens*topk*ctas <= SMs): 16..64 gate rows a
                           // CTA, inter 256..512, a last stage-2 chunk cut short (640 / 8 = 80 columns a CTA),
                           // up to 8 rows an expert
                           {2, 640, 256, 8, 2, 0, 0},    {2, 1024, 384, 32, 8, 0, 1},  {8, 2048, 512, 8, 1, 1, 1}};
  int passed = 0;
  std::set<std::string> ran;
  for (const auto& s : shapes) {
    Protocol protocol;
    protocol.rotate = 1;
    protocol.routing = s[6] ? "skewed" : "uniform";
    ProblemKey k = key(s[0], s[1], s[2], s[3], s[4], s[5] != 0);
    auto wl = unit.prepare(k, protocol, seed + static_cast<std::uint64_t>(s[0]), *backend);
    for (auto& inst : unit.instances(*backend)) {
      if (!inst->why_not(k).empty()) continue;
      for (int round = 0; round < 2; ++round) {
        CheckResult r = run_and_check(*inst, *wl, Tolerance::moe());
        EXPECT_EQ(r.verdict, Verdict::Passed)
            << inst->desc().name << " on " << k.to_string() << " (" << protocol.routing << " routing, run " << round + 1
            << "): " << r.reason;
        if (r.verdict == Verdict::Passed && round == 1) {
          ++passed;
          ran.insert(inst->desc().name);
        }
      }
    }
  }
  std::printf("moe pipelines: %d passed runs, %zu distinct pipelines\n", passed, ran.size());
  EXPECT_EQ(ran.size(), unit.describe().size()) << "every pipeline must have run on at least one shape";
}


// The wgmma stages against the warp-MMA stages of the same block_m on the same sorted inputs (stage 2:
// the same re-quantised stage-1 output), cell by cell: a tile written to the wrong place, a wrong scale
// or a stale gathered row shows up as a large difference at a named (row, column). Held to the
// product's own rule (AITER's |u - v| <= 1e-2 + 1e-2 |u|): the fp8 wgmma sums with ~14 bits inside an
// instruction, which moves cells whose products cancel by ~1e-3; stage 1's SiLU(gate)*up amplifies that
// where gate or up is near zero, so up to 0.1% of its cells may fall outside (measured: ~0.02%).
TEST(GpuMoe, WgmmaStagesMatchTheWarpMmaStages) {
  if (gpu::device_count() == 0) GTEST_SKIP() << "no GPU visible";
  gpu::GpuStream stream;
  const gpu::Stream st = gpu::as_stream(stream.native());
  // tokens, model_dim, inter_dim, experts, topk, seed (DeepSeek-V3 TP8 sizes among them)
  const int shapes[][6] = {{16, 7168, 256, 256, 8, 0}, {64, 7168, 256, 256, 8, 0}, {300, 1024, 384, 16, 4, 7},
                           {1000, 512, 512, 64, 6, 3}, {2000, 1024, 256, 8, 4, 5}};
  int compared = 0;
  for (const auto& sh : shapes) {
    const int T = sh[0], D = sh[1], I = sh[2], E = sh[3], K = sh[4];
    MoeInputs in = make_moe_inputs(T, D, I, E, K, QuantType::Per1x128, Fp8Format::E4M3FN,
                                   static_cast<std::uint64_t>(sh[5]) * 1000003ull, InputDistribution::Signed, 0,
                                   MoeRouting::Uniform);
    const DeviceInputs dev(in, stream);
    const size_t pairs = static_cast<size_t>(T) * K;
    for (int bm : {64, 128}) {
      DeviceSorted sorted(dev, T, D, I, E, K, bm, stream);
      gpu::DeviceBuffer a_ref(pairs * I * 2), aq(pairs * I), as(pairs * (I / 128) * 4),
          y_ref(pairs * D * 2), y_wg(pairs * D * 2);
      km::Args a = sorted.args;
      a.topk_ids = nullptr, a.topk_weights = nullptr;  // the stages read the sorting's outputs only
      a.aq = aq.as<uint8_t>(), a.a_scale = as.as<float>();
      const km::StageParams* ref1 = nullptr;
      const km::StageParams* ref2 = nullptr;
      for (const auto& p : km::stage_instances(km::Stage::One))
        if (p.engine == km::Engine::WarpMma && p.block_m == bm && p.split_k == 1 && !ref1) ref1 = &p;
      for (const auto& p : km::stage_instances(km::Stage::Two))
        if (p.engine == km::Engine::WarpMma && p.block_m == bm && !ref2) ref2 = &p;
      ASSERT_TRUE(ref1 && ref2);
      auto differ = [&](const gpu::DeviceBuffer& x, const gpu::DeviceBuffer& y, size_t rows, size_t cols,
                        const std::string& what, float atol, float rtol, double max_bad_fraction) {
        std::vector<uint16_t> hx(rows * cols), hy(rows * cols);
        x.copy_to_host(hx.data(), hx.size() * 2, stream);
        y.copy_to_host(hy.data(), hy.size() * 2, stream);
        size_t bad = 0;
        size_t not_finite = 0;
        for (size_t i = 0; i < hx.size(); ++i) {
          const float u = bf16_to_float(hx[i]), v = bf16_to_float(hy[i]);
          if (!std::isfinite(v)) ++not_finite;
          if (!(std::fabs(u - v) <= rtol * std::fabs(u) + atol)) {
            if (bad < 5 && max_bad_fraction == 0)
              ADD_FAILURE() << what << ": row " << i / cols << " (token " << i / cols / K << ", slot " << i / cols % K
                            << ") column " << i % cols << ": warp MMA " << u << ", wgmma " << v;
            ++bad;
          }
        }
        EXPECT_EQ(not_finite, 0u) << what << ": " << not_finite << " cells not written or not finite";
        EXPECT_LE(static_cast<double>(bad), max_bad_fraction * static_cast<double>(hx.size()))
            << what << ": " << bad << " of " << hx.size() << " cells differ";
        std::printf("%s: %zu of %zu cells outside the rule\n", what.c_str(), bad, hx.size());
        ++compared;
      };
      a.a = a_ref.as<uint16_t>();
      ASSERT_EQ(km::launch(*ref1, a, st), gpu::kSuccess);
      gpu::DeviceBuffer a_wg(pairs * I * 2);
      for (const auto& p : km::stage_instances(km::Stage::One)) {
        if (p.engine != km::Engine::Wgmma || p.block_m != bm || km::why_not(p, T, D, I, E, K) != nullptr) continue;
        a_wg.memset(0xff, stream);  // bf16 NaN: a cell the kernel leaves unwritten is counted
        aq.memset(0xff, stream);    // fp8 NaN and a NaN scale: what a re-quantising stage 1 leaves unwritten
        as.memset(0xff, stream);
        a.a = a_wg.as<uint16_t>();
        ASSERT_EQ(km::launch(p, a, st), gpu::kSuccess);
        stream.synchronize();
        const std::string what =
            std::string(p.name) + " vs " + ref1->name + " T=" + std::to_string(T) + " D=" + std::to_string(D);
        differ(a_ref, a_wg, pairs, static_cast<size_t>(I), what, 1e-2f, 1e-2f, 1e-3);
        if (!p.requantize) continue;
        // Its own bf16 rows re-quantised: the same bytes and scales as quantize_stage1 makes of them, every row (each
        // pair is routed).
        std::vector<uint8_t> q_own(pairs * I), q_sep(pairs * I);
        std::vector<uint32_t> s_own(pairs * (I / 128)), s_sep(pairs * (I / 128));
        aq.copy_to_host(q_own.data(), q_own.size(), stream);
        as.copy_to_host(s_own.data(), s_own.size() * 4, stream);
        ASSERT_EQ(km::quantize_stage1(a, st), gpu::kSuccess);
        aq.copy_to_host(q_sep.data(), q_sep.size(), stream);
        as.copy_to_host(s_sep.data(), s_sep.size() * 4, stream);
        size_t q_diff = 0, s_diff = 0;
        for (size_t i = 0; i < q_own.size(); ++i) q_diff += q_own[i] != q_sep[i];
        for (size_t i = 0; i < s_own.size(); ++i) s_diff += s_own[i] != s_sep[i];
        EXPECT_EQ(q_diff, 0u) << what << ": re-quantised bytes that differ from quantize_stage1's";
        EXPECT_EQ(s_diff, 0u) << what << ": scales that differ from quantize_stage1's";
        std::printf("%s: re-quantised in the kernel, %zu of %zu bytes and %zu of %zu scales differ from "
                    "quantize_stage1's\n", what.c_str(), q_diff, q_own.size(), s_diff, s_own.size());
        ++compared;
      }
      a.a = a_ref.as<uint16_t>();
      ASSERT_EQ(km::quantize_stage1(a, st), gpu::kSuccess);
      for (const auto& p : km::stage_instances(km::Stage::Two)) {
        if (p.engine != km::Engine::Wgmma || p.block_m != bm || km::why_not(p, T, D, I, E, K) != nullptr) continue;
        y_ref.memset(0, stream);
        y_wg.memset(0xff, stream);  // bf16 NaN: a cell the kernel leaves unwritten cannot compare equal
        a.y_slots = y_ref.as<uint16_t>();
        ASSERT_EQ(km::launch(*ref2, a, st), gpu::kSuccess);
        const std::string what =
            std::string(p.name) + " vs " + ref2->name + " T=" + std::to_string(T) + " D=" + std::to_string(D);
        if (p.accumulate) {
          // Adds every slot's row into its token's output row (bf16 atomic adds, in no fixed order): against
          // the warp-MMA stage 2's per-slot rows y_k. Each of the topk adds rounds the running sum to bf16
          // (unit roundoff 2^-8) and no partial sum exceeds sum_k |y_k|, so every cell must lie within
          // topk * 2^-8 * sum_k |y_k| of sum_k y_k (plus the wgmma's own ~1e-4 and the fp8 operand's
          // rounding flips it shares with the warp MMA: the same aq). A lost or doubled row breaks that.
          // A `_dyn` row runs twice: its second launch claims from the counter its first left (zero).
          for (int run = 0; run < (p.dynamic ? 2 : 1); ++run) {
            gpu::DeviceBuffer out_wg(static_cast<size_t>(T) * D * 2);
            out_wg.memset(0, stream);  // what the sorting's zeroing leaves
            a.out = out_wg.as<uint16_t>();
            a.y_slots = y_wg.as<uint16_t>();  // must stay untouched (NaN)
            ASSERT_EQ(km::launch(p, a, st), gpu::kSuccess);
            stream.synchronize();
            std::vector<uint16_t> slots_ref(pairs * D), slots_wg(pairs * D), out(static_cast<size_t>(T) * D);
            y_ref.copy_to_host(slots_ref.data(), slots_ref.size() * 2, stream);
            y_wg.copy_to_host(slots_wg.data(), slots_wg.size() * 2, stream);
            out_wg.copy_to_host(out.data(), out.size() * 2, stream);
            if (p.dynamic) {
              int left[2] = {-1, -1};
              sorted.counter.copy_to_host(left, sizeof(left), stream);
              EXPECT_TRUE(left[0] == 0 && left[1] == 0)
                  << what << ": the tile counter left at " << left[0] << ", " << left[1] << " (run " << run + 1 << ")";
            }
            size_t bad = 0;
            for (size_t t = 0; t < static_cast<size_t>(T); ++t)
              for (size_t c = 0; c < static_cast<size_t>(D); ++c) {
                double sum = 0, mag = 0;
                for (size_t k = 0; k < static_cast<size_t>(K); ++k) {
                  const double y = bf16_to_float(slots_ref[(t * K + k) * D + c]);
                  sum += y, mag += std::fabs(y);
                }
                const double got = bf16_to_float(out[t * D + c]);
                const double bound = (K + 1) * std::ldexp(mag, -8) + 2e-3 * mag + 1e-6;
                if (!(std::fabs(got - sum) <= bound) && bad++ < 5)
                  ADD_FAILURE() << what << ": token " << t << " column " << c << ": sum of the slots " << sum << ", added "
                                << got << " (bound " << bound << ")";
              }
            EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << out.size() << " cells outside the rounding bound";
            std::printf("%s: %zu of %zu cells outside the bound of %d bf16 adds\n", what.c_str(), bad, out.size(), K);
            ++compared;
            EXPECT_TRUE(std::all_of(slots_wg.begin(), slots_wg.end(), [](uint16_t v) { return v == 0xffffu; }))
                << what << ": an adding stage 2 wrote per-slot rows";
          }
          continue;
        }
        a.y_slots = y_wg.as<uint16_t>();
        ASSERT_EQ(km::launch(p, a, st), gpu::kSuccess);
        stream.synchronize();
        differ(y_ref, y_wg, pairs, static_cast<size_t>(D), what, 1e-2f, 1e-2f, 0.0);
      }
    }
  }
  std::printf("wgmma stages compared with the warp-MMA stages: %d comparisons\n", compared);
  EXPECT_GT(compared, 0);
}

// A wgmma stage 1 that finds its first tile's expert and rows from topk_ids itself (Args::route_stage1, decode sizes)
// must write exactly what it writes from the sorting's outputs: the same tiles, rows and k-blocks in the same order,
// so the same bits. Shapes from 12 to 512 routed pairs (the limit), with experts of several blocks (more tokens than
// block_m on few experts), experts the tokens leave unused, 512 experts, and topk 10; every `_r` row.
TEST(GpuMoe, StageOneRoutingItselfWritesWhatItWritesFromTheSorting) {
  if (gpu::device_count() == 0) GTEST_SKIP() << "no GPU visible";
  gpu::GpuStream stream;
  const gpu::Stream st = gpu::as_stream(stream.native());
  // tokens, model_dim, inter_dim, experts, topk, skewed
  const int shapes[][6] = {{8, 7168, 256, 256, 8, 0}, {16, 7168, 256, 256, 8, 1}, {3, 1024, 256, 16, 4, 0},
                           {120, 1024, 256, 8, 4, 1}, {128, 512, 256, 8, 4, 0},  {37, 512, 384, 64, 6, 1},
                           {48, 1024, 512, 512, 10, 0}};
  int compared = 0;
  for (const auto& sh : shapes) {
    const int T = sh[0], D = sh[1], I = sh[2], E = sh[3], K = sh[4];
    ASSERT_LE(T * K, km::kRouteMaxPairs);
    ASSERT_LE(E, km::kRouteMaxExperts);
    MoeInputs in = make_moe_inputs(T, D, I, E, K, QuantType::Per1x128, Fp8Format::E4M3FN, 7919ull * T + E,
                                   InputDistribution::Signed, 0, sh[5] ? MoeRouting::Skewed : MoeRouting::Uniform);
    const DeviceInputs dev(in, stream);
    const size_t pairs = static_cast<size_t>(T) * K;
    for (int bm : {64, 128}) {
      DeviceSorted sorted(dev, T, D, I, E, K, bm, stream);
      km::Args a = sorted.args;
      gpu::DeviceBuffer out(pairs * I * 2), aq(pairs * I), as(pairs * (I / 128) * 4);
      a.a = out.as<uint16_t>(), a.aq = aq.as<uint8_t>(), a.a_scale = as.as<float>();
      // Every byte of the stage's outputs, after poisoning them (an unwritten cell shows as a difference).
      auto run = [&](const km::StageParams& p, bool route) {
        out.memset(0xff, stream), aq.memset(0xff, stream), as.memset(0xff, stream);
        a.route_stage1 = route;
        EXPECT_EQ(km::launch(p, a, st), gpu::kSuccess);
        std::vector<uint8_t> h(out.size() + aq.size() + as.size());
        out.copy_to_host(h.data(), out.size(), stream);
        aq.copy_to_host(h.data() + out.size(), aq.size(), stream);
        as.copy_to_host(h.data() + out.size() + aq.size(), as.size(), stream);
        return h;
      };
      for (const auto& p : km::stage_instances(km::Stage::One)) {
        if (!p.route || p.block_m != bm || km::why_not(p, T, D, I, E, K) != nullptr) continue;
        const std::vector<uint8_t> from_sorting = run(p, false), own = run(p, true);
        size_t differ = 0, unwritten = 0;
        for (size_t i = 0; i < pairs * I * 2; i += 2)  // bf16 rows: every routed pair's cells are written
          unwritten += from_sorting[i] == 0xff && from_sorting[i + 1] == 0xff;
        for (size_t i = 0; i < from_sorting.size(); ++i) differ += from_sorting[i] != own[i];
        const std::string what = std::string(p.name) + " T=" + std::to_string(T) + " E=" + std::to_string(E) +
                                 " topk=" + std::to_string(K) + (sh[5] ? " skewed" : " uniform");
        EXPECT_EQ(unwritten, 0u) << what << ": cells the stage left unwritten";
        EXPECT_EQ(differ, 0u) << what << ": bytes that differ between routing itself and reading the sorting";
        ++compared;
      }
    }
  }
  std::printf("stage 1 routing itself against the sorting's outputs: %d comparisons\n", compared);
  EXPECT_GT(compared, 6);
}

}  // namespace
}  // namespace cktune

#endif
