#pragma once
// A tuned AITER table being read or written by key (gfx, cu_num, the family's key columns), and the
// provenance sidecar cktune writes beside the tables it makes (OUT.provenance.json, OUT.cktune/).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "cktune/formats/csv.hpp"
#include "cktune/formats/family.hpp"
#include "cktune/formats/problem.hpp"

namespace cktune {

// The kernel a row of a tuned table names ("" when the table has no kernel column): GEMM kernelName; MoE
// kernelName1, or "kernelName1+kernelName2" for a two-stage row (the name of cktune's GPU pipeline instances).
std::string tuned_row_kernel(Family family, const CsvTable& table, const std::vector<std::string>& row);

// The tuned table being written: existing rows are kept as read (byte-exact cells), new rows put by key.
class TunedTable {
 public:
  static TunedTable open(const std::string& path, Family family);
  bool has(const std::string& gfx, int cu_num, const ProblemKey& key) const;
  // The kernel the row for this key names (tuned_row_kernel), "" when none.
  std::string kernel_for(const std::string& gfx, int cu_num, const ProblemKey& key) const;
  // Insert or replace the row with the same key (cells in the table's header order).
  void put(const std::vector<std::string>& row);
  void save() const;  // atomic; GEMM rows sorted like AITER's tuners (by gfx, cu_num, then N, K, M)
  const CsvTable& csv() const { return csv_; }

 private:
  std::vector<std::string> key_of(const std::vector<std::string>& row) const;
  std::string path_;
  Family family_ = Family::A8W8Blockscale;
  CsvTable csv_;
  std::vector<size_t> key_cols_;  // gfx, cu_num, key columns
  std::map<std::vector<std::string>, size_t> index_;
};

std::string sidecar_dir(const std::string& output);       // OUT.cktune
std::string provenance_path(const std::string& output);   // OUT.provenance.json

// Read a provenance sidecar if present (for bench --config's notes); nullopt when absent.
struct TableOrigin {
  std::string gfx;
  int cu_num = 0;
  std::string device;
  std::vector<std::string> uuids;  // the boards the tune ran on (the devices' UUIDs; empty when not recorded)
  std::optional<Family> family;    // the family the tune tuned (nullopt: not recorded, or not a known name)

  // Whether a device of the same gfx and cu_num, whose board is `uuid`, is another board than the tune's: both
  // sides record a board and it is not one of the tune's. Boards of one model time the same kernels a few percent
  // apart (H200, docs/perf.md 2026-11-30 18:10: 6.5 us of 87 at 8 fused-MoE tokens), enough to change near-tie winners.
  bool other_board(const std::string& gfx_here, int cu_num_here, const std::string& uuid) const;
};
std::optional<TableOrigin> read_table_origin(const std::string& table_path);  // nullopt too for an unreadable sidecar

// The provenance sidecar beside a table (PATH.provenance.json, written by tune or merge) as it is: null when there is
// none (or the table is stdin, "-"); InputError naming the sidecar when it is not valid JSON.
nlohmann::json read_table_provenance(const std::string& table_path);

}  // namespace cktune
