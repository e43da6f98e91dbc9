#pragma once
// Which of AITER's CK instances a set of tuned tables uses, and which AITER's default build compiles for the
// same family and gfx without any row naming them (the cold-compile cost). docs/cli/ck-instances.md.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "cktune/formats/table.hpp"

namespace cktune::aiter {

struct CkUsageGroup {
  std::string family;    // "a8w8_blockscale", "moe_2stages", ...
  std::string gfx;
  std::string libtype;   // "ck" or "cktile" (MoE CK 2-stage: "ck")
  std::string variant;   // MoE: the module (act, doweight_stage1, split-K); "" for GEMM families
  bool has_list = false; // cktune holds AITER's list for this group (else only `used` is known)
  size_t rows = 0;       // rows (MoE: kernel cells) naming a kernel of this group
  std::vector<std::pair<std::string, size_t>> used;     // AITER's instances named, with row counts
  std::vector<std::pair<std::string, size_t>> unknown;  // names not in AITER's list (has_list only)
  std::vector<std::string> unused;                      // in AITER's build, named by no row
  size_t built = 0;                                     // distinct instances AITER's build compiles
};

// Groups in (family, gfx, libtype, variant) order; names in first-seen order, unused in list order.
std::vector<CkUsageGroup> ck_usage(const std::vector<Table>& tables);

nlohmann::json ck_usage_json(const std::vector<CkUsageGroup>& groups);
std::string ck_usage_text(const std::vector<CkUsageGroup>& groups);

}  // namespace cktune::aiter
