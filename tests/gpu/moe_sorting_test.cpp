// GPU moe_sorting (kernels/moe_2stages/sorting.hpp) against the CPU reference cktune::moe_sorting():
// every output cell, both paths (SingleBlock where it applies, MultiBlock always), on uniform
// routing, every token on one expert, every pair on one expert, a few experts only, and expert-parallel
// masks; twice on the same buffers (repeatability, with a dirtied workspace in between); the zeroing of
// zero_out done by the same launches (every byte zero, the guard bytes after it untouched; on the first of the
// two runs). Prints the first mismatch (index, GPU and reference values, decoded) and a small timing table
// (informative, no timed assertion). Skips without a GPU. Run: cktune_gpu_tests --gtest_filter='GpuMoeSorting.*'
#include <gtest/gtest.h>

#if defined(CKTUNE_WITH_GPU)  // the kernels exist only in GPU builds

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cktune/gpu/device.hpp"
#include "cktune/gpu/runtime.hpp"
#include "cktune/ref/moe.hpp"
#include "kernels/moe_2stages/sorting.hpp"

namespace cktune {
namespace {

namespace ks = kernels::moe_2stages;

enum class Routing {
  Uniform,   // topk distinct experts per token, uniform
  HotOne,    // every token has expert `hot` in a random slot; the other slots uniform, distinct
  AllSame,   // every pair on one expert (duplicates within a token: the sorting does not care)
  Few,       // topk distinct experts out of topk + 2 (the other experts are empty)
};
const char* routing_name(Routing r) {
  switch (r) {
    case Routing::Uniform: return "uniform";
    case Routing::HotOne: return "hot-one";
    case Routing::AllSame: return "all-same";
    case Routing::Few: return "few";
  }
  return "?";
}

struct Case {
  int tokens, topk, experts, block_m;
  Routing routing;
  int mask;  // 0: none; 1: random half local; 2: a contiguous EP shard (experts [E/4, E/2) local); 3: only the hot expert masked
  uint64_t seed;
  std::string name() const {
    std::ostringstream s;
    s << "T=" << tokens << " topk=" << topk << " E=" << experts << " block_m=" << block_m << " routing="
      << routing_name(routing) << " mask=" << mask << " seed=" << seed;
    return s.str();
  }
};

struct HostInputs {
  std::vector<int32_t> ids;
  std::vector<float> weights;
  std::vector<int32_t> mask;  // empty: none
};

HostInputs make_inputs(const Case& c) {
  std::mt19937_64 rng(c.seed);
  HostInputs in;
  const size_t n = static_cast<size_t>(c.tokens) * static_cast<size_t>(c.topk);
  in.ids.resize(n);
  in.weights.resize(n);
  const int hot = c.experts / 3;
  std::vector<int32_t> pool(static_cast<size_t>(c.experts));
  std::iota(pool.begin(), pool.end(), 0);
  std::vector<int32_t> few(static_cast<size_t>(std::min(c.experts, c.topk + 2)));
  for (size_t i = 0; i < few.size(); ++i) few[i] = static_cast<int32_t>((i * 37 + 5) % static_cast<size_t>(c.experts));
  std::sort(few.begin(), few.end());
  few.erase(std::unique(few.begin(), few.end()), few.end());
  for (int t = 0; t < c.tokens; ++t) {
    int32_t* row = in.ids.data() + static_cast<size_t>(t) * static_cast<size_t>(c.topk);
    auto draw_distinct = [&](std::vector<int32_t>& from, int count, int32_t* out) {
      for (int j = 0; j < count; ++j) {  // partial Fisher-Yates
        std::uniform_int_distribution<size_t> d(static_cast<size_t>(j), from.size() - 1);
        std::swap(from[static_cast<size_t>(j)], from[d(rng)]);
        out[j] = from[static_cast<size_t>(j)];
      }
    };
    switch (c.routing) {
      case Routing::Uniform: draw_distinct(pool, c.topk, row); break;
      case Routing::Few: draw_distinct(few, c.topk, row); break;
      case Routing::AllSame: std::fill(row, row + c.topk, hot); break;
      case Routing::HotOne: {
        draw_distinct(pool, c.topk, row);
        int at = -1;
        for (int j = 0; j < c.topk; ++j)
          if (row[j] == hot) at = j;
        if (at < 0) row[std::uniform_int_distribution<int>(0, c.topk - 1)(rng)] = hot;
        break;
      }
    }
  }
  std::uniform_real_distribution<float> w(0.01f, 1.0f);
  for (auto& v : in.weights) v = w(rng);
  if (c.mask != 0) {
    in.mask.assign(static_cast<size_t>(c.experts), 0);
    for (int e = 0; e < c.experts; ++e) {
      if (c.mask == 1) in.mask[static_cast<size_t>(e)] = static_cast<int32_t>(rng() & 1u);
      if (c.mask == 2) in.mask[static_cast<size_t>(e)] = e >= c.experts / 4 && e < c.experts / 2;
      if (c.mask == 3) in.mask[static_cast<size_t>(e)] = e != hot;
    }
  }
  return in;
}

std::string decode(int32_t id) {
  std::ostringstream s;
  s << id << " (slot " << moe_slot_of(id) << ", token " << moe_token_of(id) << ")";
  return s.str();
}

constexpr int32_t kPoisonId = 0x7eadbeef;
constexpr float kPoisonWeight = -12345.0f;

struct GpuOut {
  std::vector<int32_t> ids, eids, nv;
  std::vector<float> w;
};

// "" when equal on the cells sorting.hpp defines for `fill_unused`; otherwise the first mismatch and a
// count. Without fill_unused, the cells past the used rows must still hold the poison.
std::string compare(const MoeSorting& ref, const GpuOut& g, bool fill_unused) {
  std::ostringstream s;
  if (g.nv[0] != ref.num_valid_ids || g.nv[1] != ref.tokens) {
    s << "num_valid_ids {" << g.nv[0] << ", " << g.nv[1] << "}, reference {" << ref.num_valid_ids << ", " << ref.tokens
      << "}; ";
    return s.str();
  }
  const size_t rows = fill_unused ? ref.sorted_ids.size() : static_cast<size_t>(ref.num_valid_ids);
  const size_t blocks = fill_unused ? ref.sorted_expert_ids.size() : static_cast<size_t>(ref.num_blocks());
  size_t bad_ids = 0, bad_w = 0, bad_e = 0, first_id = SIZE_MAX, first_w = SIZE_MAX, first_e = SIZE_MAX;
  for (size_t i = 0; i < ref.sorted_ids.size(); ++i) {
    const bool defined = i < rows;
    const int32_t want_id = defined ? ref.sorted_ids[i] : kPoisonId;
    const float want_w = defined ? ref.sorted_weights[i] : kPoisonWeight;
    if (g.ids[i] != want_id && bad_ids++ == 0) first_id = i;
    if (g.w[i] != want_w && bad_w++ == 0) first_w = i;
  }
  for (size_t b = 0; b < ref.sorted_expert_ids.size(); ++b) {
    const int32_t want = b < blocks ? ref.sorted_expert_ids[b] : kPoisonId;
    if (g.eids[b] != want && bad_e++ == 0) first_e = b;
  }
  if (bad_ids > 0)
    s << bad_ids << " sorted_ids differ, first at " << first_id << " (of " << ref.sorted_ids.size() << ", num_valid "
      << ref.num_valid_ids << "): gpu " << decode(g.ids[first_id]) << ", reference " << decode(first_id < rows ? ref.sorted_ids[first_id] : kPoisonId)
      << "; ";
  if (bad_w > 0)
    s << bad_w << " sorted_weights differ, first at " << first_w << ": gpu " << g.w[first_w] << ", reference "
      << (first_w < rows ? ref.sorted_weights[first_w] : kPoisonWeight) << "; ";
  if (bad_e > 0)
    s << bad_e << " sorted_expert_ids differ, first at block " << first_e << " (of " << ref.sorted_expert_ids.size()
      << ", used " << ref.num_blocks() << "): gpu " << g.eids[first_e] << ", reference "
      << (first_e < blocks ? ref.sorted_expert_ids[first_e] : kPoisonId) << "; ";
  return s.str();
}

class Runner {
 public:
  Runner(const Case& c, const HostInputs& in, const gpu::GpuStream& stream) : c_(c), stream_(stream) {
    const size_t n = in.ids.size();
    cap_ = ks::sort_capacity(c.tokens, c.topk, c.experts, c.block_m);
    blocks_ = ks::sort_max_blocks(c.tokens, c.topk, c.experts, c.block_m);
    ids_ = gpu::DeviceBuffer(n * 4);
    w_ = gpu::DeviceBuffer(n * 4);
    ids_.copy_from_host(in.ids.data(), n * 4, stream);
    w_.copy_from_host(in.weights.data(), n * 4, stream);
    if (!in.mask.empty()) {
      mask_ = gpu::DeviceBuffer(in.mask.size() * 4);
      mask_.copy_from_host(in.mask.data(), in.mask.size() * 4, stream);
    }
    zero_bytes_ = static_cast<size_t>(c.tokens) * 7168 * 2;  // a DeepSeek-V3 bf16 output
    zbuf_ = gpu::DeviceBuffer(zero_bytes_ + kGuardBytes);
    sids_ = gpu::DeviceBuffer(cap_ * 4);
    sw_ = gpu::DeviceBuffer(cap_ * 4);
    seids_ = gpu::DeviceBuffer(blocks_ * 4);
    nv_ = gpu::DeviceBuffer(8);
  }

  ks::SortArgs args(ks::SortPath path, bool fill_unused, bool zero = true) {
    ks::SortArgs a;
    a.topk_ids = ids_.as<int32_t>();
    a.topk_weights = w_.as<float>();
    a.expert_mask = mask_.empty() ? nullptr : mask_.as<int32_t>();
    a.sorted_ids = sids_.as<int32_t>();
    a.sorted_weights = sw_.as<float>();
    a.sorted_expert_ids = seids_.as<int32_t>();
    a.num_valid_ids = nv_.as<int32_t>();
    a.tokens = c_.tokens;
    a.topk = c_.topk;
    a.experts = c_.experts;
    a.block_m = c_.block_m;
    a.fill_unused = fill_unused;
    a.path = path;
    a.overlap_previous = true;  // the kernels' wait for the previous launch is exercised too
    const size_t ws = ks::sort_workspace_bytes(c_.tokens, c_.topk, c_.experts, c_.block_m, path);
    if (ws > ws_.size()) ws_ = gpu::DeviceBuffer(ws);
    a.workspace = ws_.data();
    a.workspace_bytes = ws_.size();
    a.zero_out = zero ? zbuf_.data() : nullptr;
    a.zero_bytes = zero ? zero_bytes_ : 0;
    return a;
  }

  void poison() {
    std::vector<int32_t> pid(cap_, kPoisonId), pe(blocks_, kPoisonId), pnv(2, kPoisonId);
    std::vector<float> pw(cap_, kPoisonWeight);
    sids_.copy_from_host(pid.data(), cap_ * 4, stream_);
    sw_.copy_from_host(pw.data(), cap_ * 4, stream_);
    seids_.copy_from_host(pe.data(), blocks_ * 4, stream_);
    nv_.copy_from_host(pnv.data(), 8, stream_);
    if (!ws_.empty()) ws_.memset(0xa5, stream_);  // no state may survive in the workspace
    zbuf_.memset(0xa5, stream_);
  }

  // "" when zero_out holds zeros and the guard after it is untouched; else what is wrong.
  std::string zeroing() const {
    std::vector<unsigned char>& z = zero_host_;  // kept across runs: no fresh 235 MB to clear each time
    z.resize(zero_bytes_ + kGuardBytes);
    zbuf_.copy_to_host(z.data(), z.size(), stream_);
    size_t nonzero = 0, guard = 0;
    for (size_t i = 0; i < zero_bytes_; ++i) nonzero += z[i] != 0;
    for (size_t i = zero_bytes_; i < z.size(); ++i) guard += z[i] != 0xa5;
    if (nonzero == 0 && guard == 0) return "";
    std::ostringstream s;
    s << nonzero << " of " << zero_bytes_ << " bytes of zero_out not zeroed, " << guard << " guard bytes after it written";
    return s.str();
  }

  GpuOut read() const {
    GpuOut g;
    g.ids.resize(cap_);
    g.w.resize(cap_);
    g.eids.resize(blocks_);
    g.nv.resize(2);
    sids_.copy_to_host(g.ids.data(), cap_ * 4, stream_);
    sw_.copy_to_host(g.w.data(), cap_ * 4, stream_);
    seids_.copy_to_host(g.eids.data(), blocks_ * 4, stream_);
    nv_.copy_to_host(g.nv.data(), 8, stream_);
    return g;
  }

  gpu::ErrorCode launch(const ks::SortArgs& a) { return ks::sort(a, gpu::as_stream(stream_.native())); }

 private:
  Case c_;
  const gpu::GpuStream& stream_;
  static constexpr size_t kGuardBytes = 4096;
  size_t cap_ = 0, blocks_ = 0, zero_bytes_ = 0;
  mutable std::vector<unsigned char> zero_host_;
  gpu::DeviceBuffer ids_, w_, mask_, sids_, sw_, seids_, nv_, ws_, zbuf_;
};

class GpuMoeSorting : public ::testing::Test {
 protected:
  void SetUp() override {
    if (gpu::device_count() == 0) GTEST_SKIP() << "no GPU visible";
    gpu::set_device(0);
  }
};

// Runs every applicable path, with and without fill_unused, twice each; returns the number of runs.
int check_case(const Case& c, const gpu::GpuStream& stream, int* failures) {
  const HostInputs in = make_inputs(c);
  const MoeSorting ref = moe_sorting(in.ids, in.weights, c.tokens, c.topk, c.experts, c.block_m, in.mask);
  Runner r(c, in, stream);
  int runs = 0;
  for (ks::SortPath path : {ks::SortPath::Auto, ks::SortPath::SingleBlock, ks::SortPath::MultiBlock}) {
    if (ks::sort_why_not(c.tokens, c.topk, c.experts, c.block_m, path) != nullptr) continue;
    const char* pname = path == ks::SortPath::Auto ? "auto" : path == ks::SortPath::SingleBlock ? "single-block" : "multi-block";
    for (bool fill : {true, false})
      for (int rep = 0; rep < 2; ++rep) {
        r.poison();
        const ks::SortArgs a = r.args(path, fill);
        const gpu::ErrorCode e = r.launch(a);
        if (e != gpu::kSuccess) {
          ++*failures;
          ADD_FAILURE() << c.name() << " path=" << pname << ": launch failed: " << gpu::error_string(e);
          return runs;
        }
        stream.synchronize();
        // The zeroing is read back on the first run of each path and fill_unused setting (where the zeroing blocks sit
        // in the grid depends on both), not on the repeat: it keeps no state between runs. At 16384 tokens the output
        // is 235 MB, read back and scanned on the host: after every run the suite took ~5.5 minutes on an H200, with
        // this 97 s (2026-11-29).
        const std::string diff = compare(ref, r.read(), fill) + (rep == 0 ? r.zeroing() : std::string());
        ++runs;
        if (!diff.empty()) {
          ++*failures;
          ADD_FAILURE() << c.name() << " path=" << pname << " fill_unused=" << fill << " repeat=" << rep << ": " << diff;
          return runs;  // one report per case
        }
      }
  }
  return runs;
}

TEST_F(GpuMoeSorting, MatchesTheReferenceOnEveryShapeAndRouting) {
  gpu::GpuStream stream;
  int runs = 0, cases = 0, failures = 0;
  uint64_t seed = 1;
  for (int T : {1, 2, 7, 64, 513, 4096, 16384})
    for (int topk : {8, 10})
      for (int E : {256, 128, 512})
        for (int bm : {16, 32, 64, 128})
          for (Routing routing : {Routing::Uniform, Routing::HotOne, Routing::AllSame, Routing::Few}) {
            const Case c{T, topk, E, bm, routing, 0, seed++};
            runs += check_case(c, stream, &failures);
            ++cases;
            if (failures >= 10) FAIL() << "stopping after 10 failing cases";
          }
  std::printf("moe_sorting: %d cases, %d GPU runs compared with the reference, %d failing cases\n", cases, runs, failures);
}

TEST_F(GpuMoeSorting, ExpertMasksDropAndRenumberLikeTheReference) {
  gpu::GpuStream stream;
  int runs = 0, failures = 0;
  uint64_t seed = 1000;
  for (int T : {1, 7, 513, 4096, 16384})
    for (int E : {128, 256, 512})
      for (int bm : {16, 128})
        for (int mask : {1, 2, 3})
          for (Routing routing : {Routing::Uniform, Routing::HotOne, Routing::Few}) {
            const Case c{T, 8, E, bm, routing, mask, seed++};
            runs += check_case(c, stream, &failures);
            if (failures >= 10) FAIL() << "stopping after 10 failing cases";
          }
  std::printf("moe_sorting with expert masks: %d GPU runs compared\n", runs);
}

// A mask with no local expert: nothing routed, no rows, every block -1.
TEST_F(GpuMoeSorting, AnAllMaskedShardUsesNoRows) {
  gpu::GpuStream stream;
  for (int T : {3, 9000}) {
    Case c{T, 8, 256, 32, Routing::Uniform, 1, 77};
    HostInputs in = make_inputs(c);
    std::fill(in.mask.begin(), in.mask.end(), 0);
    const MoeSorting ref = moe_sorting(in.ids, in.weights, c.tokens, c.topk, c.experts, c.block_m, in.mask);
    ASSERT_EQ(ref.num_valid_ids, 0);
    Runner r(c, in, stream);
    for (ks::SortPath path : {ks::SortPath::Auto, ks::SortPath::MultiBlock}) {
      r.poison();
      ASSERT_EQ(r.launch(r.args(path, true)), gpu::kSuccess);
      stream.synchronize();
      EXPECT_EQ(compare(ref, r.read(), true), "") << c.name();
    }
  }
}

TEST_F(GpuMoeSorting, RefusesWhatItCannotRepresent) {
  EXPECT_NE(ks::sort_why_not(1 << 24, 8, 256, 32), nullptr);
  EXPECT_NE(ks::sort_why_not(16, 256, 256, 32), nullptr);
  EXPECT_NE(ks::sort_why_not(16, 8, 4096, 32), nullptr);
  EXPECT_EQ(ks::sort_why_not(16, 8, 2048, 32), nullptr);
  EXPECT_NE(ks::sort_why_not(16384, 8, 256, 32, ks::SortPath::SingleBlock), nullptr);
  EXPECT_EQ(ks::sort_why_not(16384, 10, 512, 128), nullptr);
  EXPECT_EQ(ks::sort_path(1, 8, 256), ks::SortPath::SingleBlock);
  // Auto takes one launch up to kSortAutoSingleBlockPairs routed pairs (8192: 1024 DeepSeek-V3 tokens).
  EXPECT_EQ(ks::sort_path(ks::kSortAutoSingleBlockPairs / 8, 8, 256), ks::SortPath::SingleBlock);
  EXPECT_EQ(ks::sort_path(ks::kSortAutoSingleBlockPairs / 8 + 1, 8, 256), ks::SortPath::MultiBlock);
  EXPECT_EQ(ks::sort_path(1, 8, 2048), ks::SortPath::MultiBlock);
  EXPECT_EQ(ks::sort_path(16384, 8, 256), ks::SortPath::MultiBlock);
  EXPECT_EQ(ks::sort_capacity(3, 8, 256, 32), 3u * 8 + 256 * 32 - 8);
  EXPECT_EQ(ks::sort_max_blocks(3, 8, 256, 32), (3u * 8 + 256 * 32 - 8 + 31) / 32);
  ks::SortArgs a;  // null pointers
  a.tokens = 1, a.topk = 8, a.experts = 256, a.block_m = 32;
  EXPECT_EQ(ks::sort(a, nullptr), gpu::kErrorInvalidValue);
}

// Informative only: microseconds per call (back-to-back launches, events around 200 calls): the
// sorting alone (fill_unused=0, as the pipelines call it), with the zeroing of a [T, 7168] bf16 output,
// and with fill_unused=1; both paths where they apply, "(auto)" marking the one sort_path() takes.
TEST_F(GpuMoeSorting, TimingTable) {
  gpu::GpuStream stream;
  std::printf("moe_sorting timing (us per call, 200 calls):\n");
  std::printf("  %6s %4s %4s %4s  %-12s %10s %10s %10s\n", "T", "topk", "E", "bm", "path", "sort", "+zero", "fill=1");
  const int shapes[][3] = {{256, 8, 32}, {512, 10, 32}, {256, 8, 64}, {512, 10, 64}};
  for (const auto& s : shapes)
    for (int T : {1, 8, 16, 64, 128, 256, 512, 1024, 4096, 16384}) {
      const Case c{T, s[1], s[0], s[2], Routing::Uniform, 0, 4242};
      const HostInputs in = make_inputs(c);
      Runner r(c, in, stream);
      for (ks::SortPath path : {ks::SortPath::SingleBlock, ks::SortPath::MultiBlock}) {
        if (ks::sort_why_not(T, c.topk, c.experts, c.block_m, path) != nullptr) continue;
        double us[3] = {0, 0, 0};
        for (int v = 0; v < 3; ++v) {
          const ks::SortArgs a = r.args(path, v == 2, v == 1);
          for (int i = 0; i < 10; ++i) ASSERT_EQ(r.launch(a), gpu::kSuccess);
          gpu::GpuTimer timer(stream);
          timer.start();
          for (int i = 0; i < 200; ++i) (void)r.launch(a);
          timer.stop();
          us[v] = timer.elapsed_us() / 200.0;
        }
        const bool automatic = ks::sort_path(T, c.topk, c.experts) == path;
        std::printf("  %6d %4d %4d %4d  %-12s %10.2f %10.2f %10.2f%s\n", T, c.topk, c.experts, c.block_m,
                    path == ks::SortPath::SingleBlock ? "single-block" : "multi-block", us[0], us[1], us[2],
                    automatic ? "  (auto)" : "");
      }
    }
}

}  // namespace
}  // namespace cktune

#endif  // CKTUNE_WITH_GPU
