#include "cktune/aiter/instances.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cktune/core/error.hpp"

namespace cktune::aiter {

namespace {

// §4.1, a8w8_blockscale CK, gfx942 = gfx950. Columns: id, BLOCK_SIZE, ScaleBlockM/N/K, M/N/KPerBLOCK,
// AK1, BK1, M/NPerXDL, WAVE_MAP_M/N, A/B block transfer, CShuffle M/N, C block transfer, C scalar per vector,
// scheduler, pipeline version.
constexpr CkGemmInstance kCkBlockscale[] = {
    {0, 256, 1, 128, 128, 128, 128, 128, 16, 16, 32, 32, 2, 2, {8, 32, 1}, {8, 32, 1}, 1, 1, {1, 32, 1, 8}, 8, "Intrawave", 3},
    {1, 256, 1, 128, 128, 128, 64, 128, 16, 16, 32, 32, 2, 1, {8, 32, 1}, {8, 32, 1}, 1, 1, {1, 32, 1, 8}, 8, "Intrawave", 3},
    {2, 256, 1, 128, 128, 64, 128, 128, 16, 16, 32, 32, 1, 2, {8, 32, 1}, {8, 32, 1}, 1, 1, {1, 32, 1, 8}, 8, "Intrawave", 3},
    {3, 256, 1, 128, 128, 64, 64, 128, 16, 16, 32, 32, 1, 1, {8, 32, 1}, {8, 32, 1}, 1, 1, {1, 32, 1, 8}, 8, "Intrawave", 3},
    {4, 256, 1, 128, 128, 16, 256, 128, 8, 16, 16, 16, 1, 4, {16, 16, 1}, {8, 32, 1}, 1, 2, {1, 16, 1, 16}, 8, "Intrawave", 1},
    {5, 256, 1, 128, 128, 16, 128, 128, 8, 16, 16, 16, 1, 2, {16, 16, 1}, {8, 32, 1}, 1, 2, {1, 16, 1, 16}, 8, "Intrawave", 1},
    {6, 256, 1, 128, 128, 16, 64, 128, 8, 16, 16, 16, 1, 1, {16, 16, 1}, {8, 32, 1}, 1, 1, {1, 16, 1, 16}, 4, "Intrawave", 1},
    {7, 256, 1, 128, 128, 16, 128, 256, 16, 16, 16, 16, 1, 2, {16, 16, 1}, {16, 16, 1}, 1, 2, {1, 16, 1, 16}, 8, "Intrawave", 1},
    {8, 256, 1, 128, 128, 16, 64, 256, 16, 16, 16, 16, 1, 1, {16, 16, 1}, {16, 16, 1}, 1, 1, {1, 16, 1, 16}, 4, "Intrawave", 1},
    {9, 256, 1, 128, 128, 32, 256, 128, 16, 16, 32, 32, 1, 2, {8, 32, 1}, {8, 32, 1}, 1, 1, {1, 32, 1, 8}, 8, "Intrawave", 1},
    {10, 256, 1, 128, 128, 32, 128, 128, 16, 16, 32, 32, 1, 1, {8, 32, 1}, {8, 32, 1}, 1, 1, {1, 32, 1, 8}, 8, "Intrawave", 1},
    {11, 256, 1, 128, 128, 32, 64, 128, 16, 16, 16, 16, 2, 1, {8, 32, 1}, {8, 32, 1}, 2, 1, {1, 32, 1, 8}, 8, "Intrawave", 1},
    {12, 256, 1, 128, 128, 32, 128, 256, 16, 16, 32, 32, 1, 1, {16, 16, 1}, {16, 16, 1}, 1, 1, {1, 32, 1, 8}, 8, "Intrawave", 1},
    {13, 256, 1, 128, 128, 32, 64, 256, 16, 16, 16, 16, 2, 1, {16, 16, 1}, {16, 16, 1}, 2, 1, {1, 32, 1, 8}, 8, "Intrawave", 1},
    {14, 256, 1, 128, 128, 64, 256, 128, 16, 16, 32, 32, 2, 2, {8, 32, 1}, {8, 32, 1}, 1, 1, {1, 32, 1, 8}, 8, "Intrawave", 1},
    {15, 256, 1, 128, 128, 64, 128, 128, 16, 16, 32, 32, 2, 1, {8, 32, 1}, {8, 32, 1}, 1, 1, {1, 32, 1, 8}, 8, "Intrawave", 1},
    {16, 256, 1, 128, 128, 64, 64, 128, 16, 16, 32, 32, 1, 1, {8, 32, 1}, {8, 32, 1}, 1, 1, {1, 32, 1, 8}, 8, "Intrawave", 1},
    {17, 256, 1, 128, 128, 64, 128, 256, 16, 16, 32, 32, 2, 1, {16, 16, 1}, {16, 16, 1}, 1, 1, {1, 32, 1, 8}, 8, "Intrawave", 1},
    {18, 256, 1, 128, 128, 64, 64, 256, 16, 16, 32, 32, 1, 1, {16, 16, 1}, {16, 16, 1}, 1, 1, {1, 32, 1, 8}, 8, "Intrawave", 1},
    {-1, 256, 1, 128, 128, 16, 128, 256, 16, 16, 16, 16, 1, 2, {16, 16, 1}, {16, 16, 1}, 1, 2, {1, 16, 1, 16}, 8, "Intrawave", 1},
};

// §4.3, a8w8_blockscale_bpreshuffle CK (same columns).
constexpr CkGemmInstance kCkBlockscaleBpreshuffle[] = {
    {0, 256, 1, 128, 128, 128, 128, 128, 16, 16, 16, 16, 8, 2, {8, 32, 1}, {8, 32, 1}, 2, 1, {1, 32, 1, 8}, 8, "Intrawave", 3},
    {1, 256, 1, 128, 128, 64, 128, 128, 16, 16, 16, 16, 4, 2, {8, 32, 1}, {8, 32, 1}, 2, 1, {1, 32, 1, 8}, 8, "Intrawave", 3},
    {2, 256, 1, 128, 128, 64, 64, 128, 16, 16, 16, 16, 4, 1, {8, 32, 1}, {8, 32, 1}, 2, 1, {1, 32, 1, 8}, 8, "Intrawave", 3},
    {3, 256, 1, 128, 128, 16, 256, 128, 8, 16, 16, 16, 1, 4, {16, 16, 1}, {8, 32, 1}, 1, 2, {1, 16, 1, 16}, 8, "Intrawave", 1},
    {4, 256, 1, 128, 128, 16, 128, 128, 8, 16, 16, 16, 1, 2, {16, 16, 1}, {8, 32, 1}, 1, 2, {1, 16, 1, 16}, 8, "Intrawave", 1},
    {5, 256, 1, 128, 128, 16, 64, 128, 8, 16, 16, 16, 1, 1, {16, 16, 1}, {8, 32, 1}, 1, 1, {1, 16, 1, 16}, 4, "Intrawave", 1},
    {6, 256, 1, 128, 128, 16, 128, 256, 16, 16, 16, 16, 1, 2, {16, 16, 1}, {16, 16, 1}, 1, 2, {1, 16, 1, 16}, 8, "Intrawave", 1},
    {7, 256, 1, 128, 128, 16, 64, 256, 16, 16, 16, 16, 1, 1, {16, 16, 1}, {16, 16, 1}, 1, 1, {1, 16, 1, 16}, 4, "Intrawave", 1},
    {8, 256, 1, 128, 128, 32, 256, 128, 16, 16, 16, 16, 2, 4, {8, 32, 1}, {8, 32, 1}, 2, 1, {1, 32, 1, 8}, 8, "Intrawave", 1},
    {9, 256, 1, 128, 128, 32, 128, 128, 16, 16, 16, 16, 2, 2, {8, 32, 1}, {8, 32, 1}, 2, 1, {1, 32, 1, 8}, 8, "Intrawave", 1},
    {10, 256, 1, 128, 128, 32, 64, 128, 16, 16, 16, 16, 2, 1, {8, 32, 1}, {8, 32, 1}, 2, 1, {1, 32, 1, 8}, 8, "Intrawave", 1},
    {11, 256, 1, 128, 128, 32, 128, 256, 16, 16, 16, 16, 2, 2, {16, 16, 1}, {16, 16, 1}, 2, 1, {1, 32, 1, 8}, 8, "Intrawave", 1},
    {12, 256, 1, 128, 128, 32, 64, 256, 16, 16, 16, 16, 2, 1, {16, 16, 1}, {16, 16, 1}, 2, 1, {1, 32, 1, 8}, 8, "Intrawave", 1},
    {13, 256, 1, 128, 128, 64, 256, 128, 16, 16, 16, 16, 4, 4, {8, 32, 1}, {8, 32, 1}, 2, 1, {1, 32, 1, 8}, 8, "Intrawave", 1},
    {14, 256, 1, 128, 128, 64, 128, 128, 16, 16, 16, 16, 4, 2, {8, 32, 1}, {8, 32, 1}, 2, 1, {1, 32, 1, 8}, 8, "Intrawave", 1},
    {15, 256, 1, 128, 128, 64, 64, 128, 16, 16, 16, 16, 4, 1, {8, 32, 1}, {8, 32, 1}, 2, 1, {1, 32, 1, 8}, 8, "Intrawave", 1},
    {16, 256, 1, 128, 128, 64, 128, 256, 16, 16, 16, 16, 4, 2, {16, 16, 1}, {16, 16, 1}, 2, 1, {1, 32, 1, 8}, 8, "Intrawave", 1},
    {17, 256, 1, 128, 128, 64, 64, 256, 16, 16, 16, 16, 4, 1, {16, 16, 1}, {16, 16, 1}, 2, 1, {1, 32, 1, 8}, 8, "Intrawave", 1},
    {-1, 256, 1, 128, 128, 64, 64, 128, 16, 16, 16, 16, 4, 1, {8, 32, 1}, {8, 32, 1}, 2, 1, {1, 32, 1, 8}, 8, "Intrawave", 1},
};

// §4.2, a8w8_blockscale CK-tile after expand_blockpercu. Columns: id, M/N/K_Tile, M/N/K_Warp,
// M/N/K_Warp_Tile, Scheduler, TiledMMAPermuteN, TransposeC, UsePersistentKernel, BlockPerCu, AQRowMajor.
constexpr CkTileGemmInstance kCkTile942[] = {
    {0, 128, 128, 128, 1, 4, 1, 16, 16, 64, "Intrawave", false, true, false, 1, false},
    {1, 16, 128, 256, 1, 4, 1, 16, 16, 64, "Intrawave", false, true, false, 1, false},
    {2, 128, 128, 128, 1, 4, 1, 16, 16, 64, "Intrawave", false, true, false, 2, false},
    {3, 128, 128, 128, 1, 4, 1, 16, 16, 64, "Intrawave", false, true, false, 3, false},
    {4, 128, 128, 128, 1, 4, 1, 16, 16, 64, "Intrawave", false, true, false, 4, false},
    {5, 16, 128, 256, 1, 4, 1, 16, 16, 64, "Intrawave", false, true, false, 2, false},
    {6, 16, 128, 256, 1, 4, 1, 16, 16, 64, "Intrawave", false, true, false, 3, false},
    {7, 16, 128, 256, 1, 4, 1, 16, 16, 64, "Intrawave", false, true, false, 4, false},
    {-1, 128, 128, 128, 1, 4, 1, 16, 16, 64, "Intrawave", false, true, false, 1, false},
};
constexpr CkTileGemmInstance kCkTile950[] = {
    {0, 16, 128, 256, 1, 4, 1, 16, 16, 128, "Intrawave", false, true, false, 1, false},
    {1, 16, 128, 256, 1, 4, 1, 16, 16, 128, "Intrawave", false, true, false, 2, false},
    {2, 16, 128, 256, 1, 4, 1, 16, 16, 64, "Intrawave", false, true, false, 1, false},
    {3, 16, 128, 256, 1, 4, 1, 16, 16, 64, "Intrawave", false, true, false, 2, false},
    {4, 32, 128, 128, 1, 4, 1, 16, 16, 128, "Intrawave", false, true, false, 1, false},
    {5, 32, 128, 128, 1, 4, 1, 16, 16, 128, "Intrawave", false, true, false, 2, false},
    {6, 32, 128, 128, 1, 4, 1, 16, 16, 64, "Intrawave", false, true, false, 1, false},
    {7, 32, 128, 128, 1, 4, 1, 16, 16, 64, "Intrawave", false, true, false, 2, false},
    {8, 128, 128, 128, 1, 4, 1, 16, 16, 128, "Intrawave", false, true, false, 1, false},
    {9, 128, 128, 128, 1, 4, 1, 16, 16, 128, "Intrawave", false, true, false, 1, false},
    {10, 128, 128, 128, 2, 2, 1, 16, 16, 128, "Intrawave", false, true, false, 2, false},
    {11, 192, 256, 128, 4, 2, 1, 16, 16, 128, "Intrawave", false, true, false, 1, false},
    {12, 192, 256, 128, 4, 2, 1, 16, 16, 128, "Intrawave", false, true, false, 1, true},
    {13, 16, 128, 256, 1, 4, 1, 16, 16, 128, "Intrawave", false, true, false, 3, false},
    {14, 16, 128, 256, 1, 4, 1, 16, 16, 128, "Intrawave", false, true, false, 4, false},
    {15, 16, 128, 256, 1, 4, 1, 16, 16, 64, "Intrawave", false, true, false, 3, false},
    {16, 16, 128, 256, 1, 4, 1, 16, 16, 64, "Intrawave", false, true, false, 4, false},
    {17, 32, 128, 128, 1, 4, 1, 16, 16, 128, "Intrawave", false, true, false, 3, false},
    {18, 32, 128, 128, 1, 4, 1, 16, 16, 128, "Intrawave", false, true, false, 4, false},
    {19, 32, 128, 128, 1, 4, 1, 16, 16, 64, "Intrawave", false, true, false, 3, false},
    {20, 32, 128, 128, 1, 4, 1, 16, 16, 64, "Intrawave", false, true, false, 4, false},
    {21, 128, 128, 128, 1, 4, 1, 16, 16, 128, "Intrawave", false, true, false, 2, false},
    {22, 128, 128, 128, 1, 4, 1, 16, 16, 128, "Intrawave", false, true, false, 3, false},
    {23, 128, 128, 128, 1, 4, 1, 16, 16, 128, "Intrawave", false, true, false, 4, false},
    {24, 128, 128, 128, 2, 2, 1, 16, 16, 128, "Intrawave", false, true, false, 1, false},
    {25, 128, 128, 128, 2, 2, 1, 16, 16, 128, "Intrawave", false, true, false, 3, false},
    {26, 128, 128, 128, 2, 2, 1, 16, 16, 128, "Intrawave", false, true, false, 4, false},
    {27, 192, 256, 128, 4, 2, 1, 16, 16, 128, "Intrawave", false, true, false, 2, false},
    {28, 192, 256, 128, 4, 2, 1, 16, 16, 128, "Intrawave", false, true, false, 3, false},
    {29, 192, 256, 128, 4, 2, 1, 16, 16, 128, "Intrawave", false, true, false, 4, false},
    {30, 192, 256, 128, 4, 2, 1, 16, 16, 128, "Intrawave", false, true, false, 2, true},
    {31, 192, 256, 128, 4, 2, 1, 16, 16, 128, "Intrawave", false, true, false, 3, true},
    {32, 192, 256, 128, 4, 2, 1, 16, 16, 128, "Intrawave", false, true, false, 4, true},
    {-1, 128, 128, 128, 1, 4, 1, 16, 16, 64, "Intrawave", false, true, false, 1, false},
};

// §4.5, moe_2stages CK, tag a8w8blkscale (fp8, QuantType.per_1x128): the same tiles on gfx942 and gfx950.
// Columns: stage, id, BLOCK_SIZE, M/N/KPerBlock, MWaves, NWaves, pipeline version.
constexpr MoeCkTile kMoeBlockscale[] = {
    {1, 0, 256, 16, 128, 256, 1, 4, 1},
    {1, 1, 128, 16, 128, 128, 1, 2, 1},
    {1, 2, 256, 32, 128, 128, 1, 4, 1},
    {1, 3, 256, 64, 128, 128, 1, 4, 3},
    {1, 5, 256, 64, 128, 128, 1, 4, 1},
    {2, 0, 256, 16, 128, 256, 1, 4, 1},
    {2, 1, 128, 16, 128, 128, 1, 2, 1},
    {2, 2, 256, 32, 128, 128, 1, 4, 1},
    {2, 3, 256, 64, 128, 128, 1, 4, 3},
    {2, 5, 256, 64, 128, 128, 1, 4, 1},
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

template <size_t N>
std::string join_x(const std::array<int, N>& a) {
  return fmt::format("{}", fmt::join(a, "x"));
}

// The fields §4.1 and §4.3 share; `wave_map` is left out by the bpreshuffle rule.
std::string ck_gemm_name(std::string_view prefix, const CkGemmInstance& k, bool wave_map) {
  std::string name = fmt::format("{}_{}x{}x{}_{}x{}x{}x{}_{}x{}_{}x{}", prefix, k.scale_m, k.scale_n, k.scale_k,
                                 k.block_size, k.m_per_block, k.n_per_block, k.k_per_block, k.ak1, k.bk1, k.m_per_xdl,
                                 k.n_per_xdl);
  if (wave_map) name += fmt::format("_{}x{}", k.wave_map_m, k.wave_map_n);
  name += fmt::format("_{}_{}_{}_{}_{}x{}_{}_v{}", join_x(k.a_block_transfer), join_x(k.b_block_transfer),
                      join_x(k.c_block_transfer), k.c_scalar_per_vector, k.cshuffle_m, k.cshuffle_n,
                      lower(k.scheduler), k.pipeline);
  return name;
}

bool is_gfx942(std::string_view gfx) { return gfx == "gfx942"; }
bool is_gfx950(std::string_view gfx) { return gfx == "gfx950"; }

template <class T, class NameFn>
GemmCheck check_list(std::span<const T> list, int id, std::string_view name, NameFn name_of) {
  GemmCheck c;
  c.verdict = GemmVerdict::Unknown;
  for (const auto& k : list)
    if (k.id == id) c.expected = name_of(k);
  if (!c.expected.empty() && c.expected == name) {
    c.verdict = GemmVerdict::Known;
    return c;
  }
  for (const auto& k : list)
    if (name_of(k) == name) {
      c.verdict = GemmVerdict::StaleId;
      c.name_id = k.id;
      break;
    }
  return c;
}

constexpr std::string_view kActs[] = {"silu", "gelu"};

}  // namespace

std::string ck_blockscale_name(const CkGemmInstance& k) { return ck_gemm_name("a8w8_blockscale", k, true); }

std::string ck_blockscale_bpreshuffle_name(const CkGemmInstance& k) {
  return ck_gemm_name("a8w8_blockscale_bpreshuffle", k, false);
}

std::string cktile_blockscale_name(const CkTileGemmInstance& k) {
  std::string name = fmt::format("a8w8_blockscale_cktile_{}x{}x{}_{}x{}x{}_{}x{}x{}_{}_{}x{}x{}_{}", k.m_tile,
                                 k.n_tile, k.k_tile, k.m_warp, k.n_warp, k.k_warp, k.m_warp_tile, k.n_warp_tile,
                                 k.k_warp_tile, lower(k.scheduler), int(k.permute_n), int(k.transpose_c),
                                 int(k.persistent), k.block_per_cu);
  if (k.aq_row_major) name += "_aqrm";
  return name;
}

std::string moe_ck_blockscale_name(const MoeCkTile& t, const MoeCkVariant& v) {
  // CDEElementOp of the a8w8blkscale tag; split-K exists for stage 1 only. QuantType 4 = per_1x128;
  // A, B fp8 and the output bf16 (the split-K kernels keep the B16 token although they write fp32).
  std::string_view op = (v.splitk && t.stage == 1) ? "MulABScaleExpertWeightA8W8blkscaleSplitk"
                                                   : "MulABScaleExpertWeightA8W8blkscale";
  const bool weighted = (t.stage == 1) == v.doweight_stage1;
  std::string name = fmt::format("moe_ck2stages_gemm{}_{}x{}x{}x{}_{}x{}_{}_v{}_Nswizzle0_Quant4_MulRoutedWeight{}",
                                 t.stage, t.block_size, t.m_per_block, t.n_per_block, t.k_per_block, t.m_waves,
                                 t.n_waves, op, t.pipeline, int(weighted));
  if (t.stage == 1) name += fmt::format("_{}", v.act);  // gemm2 names carry no activation token
  name += "_F8_F8_B16";
  return name;
}

std::span<const CkGemmInstance> ck_blockscale_instances() { return kCkBlockscale; }
std::span<const CkGemmInstance> ck_blockscale_bpreshuffle_instances() { return kCkBlockscaleBpreshuffle; }

std::span<const CkTileGemmInstance> cktile_blockscale_instances(std::string_view gfx) {
  if (is_gfx942(gfx)) return kCkTile942;
  if (is_gfx950(gfx)) return kCkTile950;
  return {};
}

std::span<const MoeCkTile> moe_ck_blockscale_tiles(std::string_view gfx) {
  if (has_lists(gfx)) return kMoeBlockscale;  // §4.5: gfx950 blockscale is the gfx942 list
  return {};
}

bool has_lists(std::string_view gfx) { return is_gfx942(gfx) || is_gfx950(gfx); }

bool is_amd_gfx(std::string_view gfx) {
  return gfx.size() >= 4 && gfx.substr(0, 4) == "gfx9";
}

int aiter_cu_num(std::string_view gfx, int device_cu_num, const char* env_cu_num) {
  if (!is_amd_gfx(gfx) || env_cu_num == nullptr) return device_cu_num;
  const std::string_view v(env_cu_num);
  int n = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size() || n <= 0 || n > 100000)
    throw Error(fmt::format("CU_NUM='{}' is not a positive number of compute units", v),
                "AITER keys its tables by CU_NUM when it is set: unset it, or set it to the CU count of the "
                "partition (e.g. CU_NUM=304 on a whole MI300X); `cktune discover` shows the device's count");
  return n;
}

bool is_cktune_libtype(std::string_view libtype) {
  // Kept equal to engine's kProviderNames by tests/unit/aiter/instances_test.cpp (this layer sits below engine).
  return libtype == "cktune" || libtype == "cktune_cpu" || libtype == "blaslt";
}

GemmCheck check_gemm_kernel(Family f, std::string_view gfx, std::string_view libtype, int id, std::string_view name) {
  if (!has_lists(gfx)) return {};
  if (f == Family::A8W8Blockscale && libtype == "ck")
    return check_list(ck_blockscale_instances(), id, name, ck_blockscale_name);
  if (f == Family::A8W8BlockscaleBpreshuffle && libtype == "ck")
    return check_list(ck_blockscale_bpreshuffle_instances(), id, name, ck_blockscale_bpreshuffle_name);
  if (f == Family::A8W8Blockscale && libtype == "cktile")
    return check_list(cktile_blockscale_instances(gfx), id, name, cktile_blockscale_name);
  return {};
}

std::optional<MoeCkVariant> moe_variant_of(std::string_view name) {
  if (name.substr(0, 14) != "moe_ck2stages_" || name.find("_Quant4_") == std::string_view::npos) return std::nullopt;
  for (std::string_view act : kActs)
    for (bool dw : {false, true})
      for (bool sk : {false, true})
        for (const auto& t : kMoeBlockscale) {
          MoeCkVariant v{act, dw, sk};
          if (moe_ck_blockscale_name(t, v) == name) return v;
        }
  return std::nullopt;
}

std::optional<bool> moe_ck_name_known(std::string_view gfx, std::string_view name) {
  if (name.substr(0, 14) != "moe_ck2stages_" || name.find("_Quant4_") == std::string_view::npos) return std::nullopt;
  if (!has_lists(gfx)) return std::nullopt;
  return moe_variant_of(name).has_value();
}

std::vector<std::string> build_names(Family f, std::string_view gfx, std::string_view libtype,
                                     const MoeCkVariant& moe_variant) {
  std::vector<std::string> names;
  auto add = [&](std::string n) {
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(std::move(n));
  };
  if (!has_lists(gfx)) return names;
  if (f == Family::A8W8Blockscale && libtype == "ck")
    for (const auto& k : ck_blockscale_instances()) add(ck_blockscale_name(k));
  else if (f == Family::A8W8BlockscaleBpreshuffle && libtype == "ck")
    for (const auto& k : ck_blockscale_bpreshuffle_instances()) add(ck_blockscale_bpreshuffle_name(k));
  else if (f == Family::A8W8Blockscale && libtype == "cktile")
    for (const auto& k : cktile_blockscale_instances(gfx)) add(cktile_blockscale_name(k));
  else if (f == Family::Moe2Stages && libtype == "ck")
    for (const auto& t : moe_ck_blockscale_tiles(gfx)) add(moe_ck_blockscale_name(t, moe_variant));
  return names;
}

std::string variant_label(const MoeCkVariant& v) {
  return fmt::format("a8w8blkscale {}, doweight_stage1={}, splitk={}", v.act, int(v.doweight_stage1), int(v.splitk));
}

}  // namespace cktune::aiter
