#pragma once
// What a tuning run keeps on disk besides the table: the table itself (rewritten atomically after every
// shape), a journal of finished shapes for exact resumption, the provenance sidecar and a copy of the
// untuned input. Layout (docs/cli/tune.md):
//   OUT.csv                      the tuned table (AITER layout)
//   OUT.csv.provenance.json      how it was made (command, version, devices, protocol, seed, dates)
//   OUT.csv.cktune/untuned.csv   the untuned input it was made from
//   OUT.csv.cktune/journal.jsonl shapes finished by the current run (tuned, failed, kept)
// The sidecar folder is not a *.csv file, so AITER's model_configs glob never picks it up.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cktune/formats/csv.hpp"
#include "cktune/tune/backend.hpp"
#include "cktune/tune/problem.hpp"

namespace cktune {

struct TuneOptions;

// The tuned table being written: existing rows are kept as read (byte-exact cells), new rows put by key.
class TunedTable {
 public:
  static TunedTable open(const std::string& path, Family family);
  bool has(const std::string& gfx, int cu_num, const ProblemKey& key) const;
  // kernelName (kernelName1 for MoE) of the row for this key, "" when none.
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

// Identity of a run: same input, options and candidates on the same device => same identity, so a
// rerun of the same command resumes instead of starting over.
std::string run_identity(const TuneOptions& o, Family family, const std::vector<ProblemKey>& keys,
                         const std::vector<std::string>& candidates, const DeviceInfo& device);

class RunState {
 public:
  // Opens OUT.cktune/journal.jsonl; a journal of another run identity is set aside (renamed) first.
  static RunState open(const std::string& output, const std::string& identity);
  bool finished(const ProblemKey& key, bool retry_failed) const;
  void record(const ProblemKey& key, const std::string& status, const std::string& detail);  // appends + fsync

 private:
  std::string path_;
  std::map<std::vector<std::string>, std::string> status_;
};

std::string sidecar_dir(const std::string& output);
std::string provenance_path(const std::string& output);
void write_provenance(const TuneOptions& o, Family family, const std::vector<DeviceInfo>& devices, int shapes,
                      const std::string& status);
void copy_untuned_input(const std::string& input, const std::string& output);

// Read a provenance sidecar if present (for merge / bench --config warnings); nullopt when absent.
struct TableOrigin {
  std::string gfx;
  int cu_num = 0;
  std::string device;
};
std::optional<TableOrigin> read_table_origin(const std::string& table_path);

}  // namespace cktune
