#pragma once
// Merging and checking AITER tables the way AITER's loader keys them, so that a merged table never trips
// the loader (duplicate keys) and never carries rows the runtime cannot use. docs/cli/merge.md.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "cktune/formats/csv.hpp"
#include "cktune/formats/family.hpp"
#include "cktune/formats/table.hpp"

namespace cktune {

struct MergeOptions {
  double max_err_ratio = 0.05;       // GEMM errRatio above this is an invalid row (AITER's --errRatio default)
  double max_moe_err = 0.10;         // MoE err1/err2 (fractions; cells are percents) above this are invalid
  bool strict = false;               // --check: unreachable rows and warnings fail too
  bool keep_order = false;           // merge: keep input order instead of AITER's sort
  std::optional<Family> family;      // --family: for tables whose header and name leave it open
  // merge: rows whose `us` is not a usable time (not a finite number > 0) are an error naming each
  // FILE:LINE; with drop_invalid (--drop-invalid) they are left out and reported as warnings.
  bool drop_invalid = false;
};

enum class FindingKind {
  Duplicate,          // one key in several rows (within or across inputs)
  InvalidUs,          // us not a number, not finite, or <= 0
  ErrTooHigh,         // errRatio / err1 / err2 above the limit
  MissingColumns,     // the file name's family needs columns the header lacks
  UnknownFamily,      // the header fits no family
  AmbiguousFamily,    // the header fits several families and the file name does not decide
  MixedFamilies,      // inputs of different families
  MixedKinds,         // tuned and untuned inputs together
  MixedDevices,       // several (gfx, cu_num) pairs
  Unreachable,        // a row the runtime can never look up
  ShortRow,           // a row lacking trailing cells (read as empty, like pandas)
  InferredGfx,        // a legacy table without gfx: gfx inferred from cu_num
  UnknownGfx,         // a legacy cu_num whose arch is unknown: the row cannot be keyed by gfx
  UnknownKernel,      // a ck/cktile (or moe_ck2stages) row naming a kernel not in AITER's list for its gfx
  NotAiterKernel,     // a row of cktune's own libtype in a table for an AMD gfx: AITER cannot load it
  StaleKernelId,      // AITER's kernel name under another kernelId (an older AITER's numbering)
  UncheckedKernels,   // ck/cktile rows for which cktune holds no AITER list (counted per file)
};
std::string_view finding_kind_name(FindingKind k);

enum class Severity { Note, Warning, Error };
std::string_view severity_name(Severity s);

struct Finding {
  FindingKind kind;
  Severity severity;
  std::string file;            // "" when about the whole set
  std::uint64_t line = 0;
  std::uint64_t column = 0;
  std::string message;
};

// One key seen in several rows.
struct Collision {
  struct Entry {
    std::string file;
    std::uint64_t line = 0;
    std::string us;  // the cell as written ("" for untuned tables)
  };
  TableKey key;
  std::vector<Entry> entries;  // in input order (file order on the command line, then line order)
  size_t winner = 0;           // index into entries
};

struct DeviceCount {
  std::string gfx;
  std::int64_t cu_num = -1;
  size_t rows = 0;
};

struct InputSummary {
  std::string file;
  std::string family;          // TableLayout::family_text()
  TableKind kind = TableKind::Tuned;
  size_t rows = 0;
  bool gfx_inferred = false;
};

struct MergeReport {
  std::optional<Family> family;
  TableKind kind = TableKind::Tuned;
  std::vector<InputSummary> inputs;
  std::string output;                 // "" for --check
  size_t rows_in = 0;
  size_t rows_out = 0;
  size_t rows_dropped = 0;            // merge --drop-invalid: rows left out for an unusable us
  std::vector<Collision> collisions;
  std::vector<Finding> findings;
  std::vector<DeviceCount> devices;

  size_t count(Severity s) const;
  // The verdict of --check: errors fail; with `strict`, warnings fail too.
  bool passed(bool strict) const;
};

struct MergeResult {
  MergeReport report;
  CsvTable table;  // the merged table, ready for write_csv_atomic
};

// Merge tables of one family and kind. Throws Error when the inputs cannot be merged (unknown, ambiguous
// or mixed families; tuned with untuned), naming every input and its family, and InputError when a row's
// `us` is unusable (unless options.drop_invalid), naming every such FILE:LINE. errRatio/err1/err2 above
// the --check limits are warnings in a merge (AITER's own tables carry such rows). Duplicate keys keep the row
// with the lowest valid `us` (ties: the row seen first, i.e. the earlier input, then the earlier line);
// every collision is in the report. Output columns and order: docs/cli/merge.md.
MergeResult merge_tables(const std::vector<Table>& inputs, const MergeOptions& options);

// Validate tables without writing anything: duplicates, invalid rows, unknown families, mixed inputs,
// unreachable rows. Never throws for problems in the data: they are findings.
MergeReport check_tables(const std::vector<Table>& inputs, const MergeOptions& options);

// Machine-readable report (--json; layout in docs/cli/merge.md) and the human lines for stderr, each with
// the severity to log it at ("FILE:LINE:COL: kind: message").
nlohmann::json report_json(const MergeReport& report, bool check, bool strict);
std::vector<std::pair<Severity, std::string>> report_lines(const MergeReport& report);

// The provenance sidecar of a merged table (OUT.provenance.json, docs/cli/merge.md): how it was made (`status`
// "merged", the command line, the time), its family, and per input its file, rows and the provenance its own
// sidecar held (null without one). From the inputs' sidecars it carries what later readers take from a tune's:
// `devices` (their union), `gfx` / `cu_num` (when the merged rows are of one device), `profile` / `profiles` (the
// fused-MoE profiles `report` reads pipeline times from). `input_provenance` is parallel to report.inputs.
struct MergedProvenanceContext {
  std::string table;                // the output, absolute
  std::vector<std::string> inputs;  // the inputs, absolute, parallel to report.inputs
  std::string command_line;
  std::string created;              // timestamp
  std::string version;              // cktune's
};
nlohmann::json merged_provenance(const MergeReport& report, const std::vector<nlohmann::json>& input_provenance,
                                 const MergedProvenanceContext& context);

}  // namespace cktune
