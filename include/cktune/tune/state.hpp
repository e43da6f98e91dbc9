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

#include "cktune/core/names.hpp"
#include "cktune/discover/gpu_status.hpp"
#include "cktune/engine/backend.hpp"
#include "cktune/formats/tuned_table.hpp"
#include "cktune/formats/problem.hpp"

namespace cktune {

struct TuneOptions;

// What the journal says of a finished shape.
enum class JournalStatus { Tuned, Failed, Kept };
inline constexpr EnumName<JournalStatus> kJournalStatusNames[] = {
    {JournalStatus::Tuned, "tuned"}, {JournalStatus::Failed, "failed"}, {JournalStatus::Kept, "kept"}};
constexpr std::string_view to_string(JournalStatus s) { return enum_text(kJournalStatusNames, s); }

// Identity of a run: same input, options and candidates on the same device => same identity, so a
// rerun of the same command resumes instead of starting over.
std::string run_identity(const TuneOptions& o, Family family, const std::vector<ProblemKey>& keys,
                         const std::vector<std::string>& candidates, const DeviceInfo& device);

class RunState {
 public:
  // Opens OUT.cktune/journal.jsonl; a journal of another run identity is set aside (renamed) first.
  static RunState open(const std::string& output, const std::string& identity);
  // What this run's journal recorded for the key, if anything.
  std::optional<JournalStatus> status(const ProblemKey& key) const;
  void record(const ProblemKey& key, JournalStatus status, const std::string& detail);  // appends + fsync

 private:
  std::string path_;
  std::map<std::vector<std::string>, JournalStatus> status_;
};

// `clocks`: what the devices' clocks did while the run timed kernels (omitted when nothing was sampled).
void write_provenance(const TuneOptions& o, Family family, const std::vector<DeviceInfo>& devices, int shapes,
                      const std::string& status, const discover::ClockSummary* clocks = nullptr);
void copy_untuned_input(const std::string& input, const std::string& output);

}  // namespace cktune
