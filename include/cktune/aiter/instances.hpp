#pragma once
// AITER's own CK and CK-tile kernel instance lists, as plain data (shared/docs/aiter-kernels.md §4, read at
// AITER e4048607). On AMD a tuned row AITER can load names one of these (libtype `ck`/`cktile`, kernelId,
// kernelName); a row naming anything else breaks AITER's build or start-up. Every name is built from the
// entry's parameters by one function per kind, following AITER's naming rules. docs/arch/aiter.md.
#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cktune/formats/csv.hpp"
#include "cktune/formats/family.hpp"

namespace cktune::aiter {

// a8w8_blockscale CK (§4.1) and a8w8_blockscale_bpreshuffle CK (§4.3): AITER's `KernelInstance`.
struct CkGemmInstance {
  int id;  // kernelId = the dict key; -1 is the untuned default
  int block_size;
  int scale_m, scale_n, scale_k;
  int m_per_block, n_per_block, k_per_block;
  int ak1, bk1;
  int m_per_xdl, n_per_xdl;
  int wave_map_m, wave_map_n;                 // CK's MXdlPerWave / NXdlPerWave
  std::array<int, 3> a_block_transfer;        // K0_M_K1
  std::array<int, 3> b_block_transfer;        // K0_N_K1
  int cshuffle_m, cshuffle_n;                 // CShuffle M/N XdlPerWavePerShuffle
  std::array<int, 4> c_block_transfer;        // CBlockTransferClusterLengths
  int c_scalar_per_vector;                    // CBlock ScalarPerVector (a one-element list in AITER)
  std::string_view scheduler;                 // "Intrawave" / "Interwave"
  int pipeline;                               // PIPELINE_VERSION (3 -> "v3")
};

// a8w8_blockscale CK-tile (§4.2): AITER's `TileKernelInstance`.
struct CkTileGemmInstance {
  int id;  // kernelId = the key of the expanded dict
  int m_tile, n_tile, k_tile;
  int m_warp, n_warp, k_warp;
  int m_warp_tile, n_warp_tile, k_warp_tile;
  std::string_view scheduler;
  bool permute_n, transpose_c, persistent;
  int block_per_cu;
  bool aq_row_major;
};

// moe_2stages CK 2-stage tiles (§4.5): AITER's kernelInstanceGEMM1/2 without the name-only fields.
struct MoeCkTile {
  int stage;  // 1 or 2
  int id;
  int block_size;
  int m_per_block, n_per_block, k_per_block;
  int m_waves, n_waves;
  int pipeline;
};

// The name-only fields of a MoE CK instance that AITER fills from the problem.
struct MoeCkVariant {
  std::string_view act = "silu";   // ACT_OP_NAME token of stage 1: "silu" or "gelu"
  bool doweight_stage1 = false;    // routing weights applied in stage 1 (else stage 2)
  bool splitk = false;             // stage-1 split-K kernels (CDEElementOp ...Splitk)
};

// Naming rules, one per kind.
std::string ck_blockscale_name(const CkGemmInstance& k);              // §4.1 "a8w8_blockscale_..."
std::string ck_blockscale_bpreshuffle_name(const CkGemmInstance& k);  // §4.3, without the wave map
std::string cktile_blockscale_name(const CkTileGemmInstance& k);      // §4.2 "a8w8_blockscale_cktile_..."
std::string moe_ck_blockscale_name(const MoeCkTile& t, const MoeCkVariant& v);  // §4.5, fp8 1x128 tag a8w8blkscale

// The lists. CK lists are the same on gfx942 and gfx950; CK-tile and MoE lists are per gfx. An arch the
// documentation gives no list for yields an empty span.
std::span<const CkGemmInstance> ck_blockscale_instances();                // ids 0..18, then -1
std::span<const CkGemmInstance> ck_blockscale_bpreshuffle_instances();    // ids 0..17, then -1
std::span<const CkTileGemmInstance> cktile_blockscale_instances(std::string_view gfx);
std::span<const MoeCkTile> moe_ck_blockscale_tiles(std::string_view gfx);  // stage 1 then stage 2

// True for the archs whose lists cktune holds (gfx942, gfx950).
bool has_lists(std::string_view gfx);
// An AMD Instinct arch (gfx9xx): a table for it is meant for AITER.
bool is_amd_gfx(std::string_view gfx);
// The cu_num AITER keys this device's rows by: the CU_NUM environment variable when set (AITER's Python
// side reads it before the device; partitioned MI300X modes set it), else the device's own count. Only
// for AMD gfx: elsewhere the device's count. `env_cu_num` is the variable's value (nullptr: unset).
// Throws Error when it is set but not a positive integer (AITER would fail on it too).
int aiter_cu_num(std::string_view gfx, int device_cu_num, const char* env_cu_num);
// cktune's own libtypes (the names of engine's Provider: cktune_cpu, cktune, blaslt), which AITER never loads.
bool is_cktune_libtype(std::string_view libtype);

// One (gfx, libtype, kernelId, kernelName) of a GEMM row checked against AITER's lists.
enum class GemmVerdict {
  Known,        // this id names this kernel
  StaleId,      // the name is AITER's, under another id (older AITER): the runtime goes by name
  Unknown,      // the name is not in AITER's list for that gfx
  NoList,       // cktune holds no list for this (family, gfx, libtype)
};
struct GemmCheck {
  GemmVerdict verdict = GemmVerdict::NoList;
  std::string expected;       // the name AITER's list has for this id ("" when the id is not in it)
  std::optional<int> name_id;  // the first id whose name this is (StaleId)
};
GemmCheck check_gemm_kernel(Family f, std::string_view gfx, std::string_view libtype, int id, std::string_view name);

// Does AITER's fp8-blockscale MoE CK list for gfx (any act/doweight/split-K variant of §4.5's rule) hold
// this name? nullopt when the name is not an fp8 blockscale CK name (Quant4) or no list exists for gfx.
std::optional<bool> moe_ck_name_known(std::string_view gfx, std::string_view name);

// Every distinct kernel name AITER's default build compiles for (family, gfx, libtype); for moe_2stages
// (libtype "ck") the variant's stage-1 and stage-2 names. Empty when no list is held.
std::vector<std::string> build_names(Family f, std::string_view gfx, std::string_view libtype,
                                     const MoeCkVariant& moe_variant = {});

// The MoE variant a name belongs to (nullopt for a name that is not an fp8 blockscale CK 2-stage name).
std::optional<MoeCkVariant> moe_variant_of(std::string_view name);
std::string variant_label(const MoeCkVariant& v);  // "silu, doweight_stage1=0, splitk=0"

// Calls f(row, column name, column index, kernel name) for every CK 2-stage MoE kernel name
// (`moe_ck2stages_*`) in the kernelName1 / kernelName2 cells of a tuned_fmoe table.
template <class F>
void for_each_moe_ck_name(const CsvTable& c, F&& f) {
  for (std::string_view col : {std::string_view("kernelName1"), std::string_view("kernelName2")}) {
    auto ci = c.column(col);
    if (!ci) continue;
    for (size_t r = 0; r < c.rows.size(); ++r) {
      const std::string& name = c.rows[r][*ci];
      if (name.rfind("moe_ck2stages_", 0) == 0) f(r, col, *ci, name);
    }
  }
}

}  // namespace cktune::aiter
