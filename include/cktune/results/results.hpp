#pragma once
// cktune's results file: what `bench` and `tune` measured, one row per (shape, role, kernel), one family per
// file. It is the input of `compare` and `report`, so every row carries what is needed to reproduce it
// (device, protocol, seed, version). docs/arch/results.md describes the columns.
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cktune/formats/csv.hpp"
#include "cktune/formats/family.hpp"
#include "cktune/formats/problem.hpp"
#include "cktune/verify/verdict.hpp"

namespace cktune {

// Why a row was measured.
enum class ResultRole {
  Dispatch,   // what the runtime dispatch runs for this key today: the tuned row if any, else the default
  Baseline,   // a vendor library (cuBLASLt, hipBLASLt, ...) timed in the same run
  Candidate,  // one candidate of a tuning run (--all-candidates, tune's profile file)
  Against,    // `bench --against`: the reference table's dispatch, measured interleaved with the dispatch rows
};
std::string_view to_string(ResultRole role);
std::optional<ResultRole> result_role_from_string(std::string_view text);

// Where the kernel of a dispatch row came from.
enum class ResultSource {
  Tuned,    // a row of a tuned table
  Default,  // the default heuristic (no tuned row for this key)
  None,     // not applicable (baselines, candidates): written as "-"
};
std::string_view to_string(ResultSource source);
std::optional<ResultSource> result_source_from_string(std::string_view text);

struct ResultRow {
  std::string gfx;                 // "gfx942", "sm_90"
  long cu_num = 0;                 // CU / SM count as AITER keys it
  ProblemKey key;                  // family + untuned key cells in AITER order
  ResultRole role = ResultRole::Dispatch;
  ResultSource source = ResultSource::None;
  std::string backend;             // "gpu", "cpu", "cublaslt", "aiter-ck", ...
  std::string libtype;             // the tuned table's libtype for this kernel ("" when the family has none)
  std::int64_t kernel_id = -1;     // -1 when not an instance of a table (vendor library, default)
  std::string kernel_name;
  int split_k = 0;
  double us = -1;                  // median µs; -1 = not measured (unsupported, error); inf = timed out
  double us_min = -1, us_p10 = -1, us_p90 = -1;
  double tflops = 0;
  double bw = 0;                   // GB/s
  double err_ratio = 0;            // fraction of mismatching elements (AITER's errRatio)
  std::optional<Verdict> verdict;  // written as its text ("passed", "incorrect", ...); empty when not checked
  std::string reason;              // free text, no commas (written with ';')
  std::string device;              // "NVIDIA H100 80GB HBM3"
  std::string protocol;            // Protocol::describe(): "timer=events;warmup=5;iters=101;..."
  std::uint64_t seed = 0;
  std::string timestamp;           // ISO 8601 UTC, "2026-11-21T07:05:18Z"
  std::string version;             // cktune version that wrote the row
  std::string parts;               // pipelines: each part timed alone, "sort=1.2;stage1=3.4;stage2=5.6" (µs)
  std::string uuid;                // the board ("GPU-082af63b-..."); "" where the device names none (the CPU)

  Family family() const { return key.family; }
  // A usable time: finite and positive (not -1, not inf, not NaN).
  bool measured() const;
};

struct ResultsFile {
  std::string path;                // where it was read from ("" when built in memory)
  Family family = Family::A8W8Blockscale;
  std::vector<ResultRow> rows;
};

// The header of a results file for `family` (the column order written).
std::vector<std::string> results_header(Family family);

// True when `table` has the columns that identify a results file (family and us), so `compare` can tell
// a results file from an AITER op_test table.
bool is_results_table(const CsvTable& table);

// Rows as a CSV table / text in the exact written form. Every row must be of `family` and carry one key
// cell per untuned column (Error otherwise). Free-text cells have commas replaced by ';', quotes by '\''
// and line breaks by spaces, so the file stays a plain AITER-style CSV.
CsvTable results_table(Family family, std::span<const ResultRow> rows);
std::string render_results(Family family, std::span<const ResultRow> rows);

// Write atomically (temporary + rename). The second form takes the family from the rows (Error when the
// span is empty or holds two families).
void write_results(const std::string& path, Family family, std::span<const ResultRow> rows);
void write_results(const std::string& path, std::span<const ResultRow> rows);

// Parse a results file leniently: columns are found by name in any order, extra columns are ignored,
// missing optional columns take their defaults; `family`, the family's key columns and `us` are required.
// Errors are InputError naming file:line:col (unknown family, two families in one file, a key cell or a
// number that does not parse, an unknown role, source or verdict).
ResultsFile parse_results(const CsvTable& table);
ResultsFile read_results(const std::string& path);

// Two rows describe the same measurement slot (same gfx, cu_num, key, role, backend, kernel and split):
// a later row for the same slot replaces an earlier one when appending.
bool same_slot(const ResultRow& a, const ResultRow& b);

// Append rows to a results file and rewrite it atomically (tune calls this after every shape, so a
// crash never loses finished shapes). A missing file is created; rows of an existing file that occupy
// the same slot as a new row are replaced. Error when the file holds another family.
void append_results(const std::string& path, Family family, std::span<const ResultRow> rows);

// The same for a long run, without re-reading the file each time: keeps the rows in memory and rewrites
// the whole file atomically after each add(). With resume = true an existing file's rows are loaded first.
class ResultsWriter {
 public:
  ResultsWriter(std::string path, Family family, bool resume);
  void add(std::span<const ResultRow> rows);
  void add(const ResultRow& row) { add(std::span<const ResultRow>(&row, 1)); }
  const std::vector<ResultRow>& rows() const { return rows_; }
  const std::string& path() const { return path_; }

 private:
  void merge(std::span<const ResultRow> rows);
  std::string path_;
  Family family_;
  std::vector<ResultRow> rows_;
};

// "2026-11-21T07:05:18Z" (UTC), the timestamp written into rows.
std::string format_timestamp(std::chrono::system_clock::time_point t);

// The --log-dir naming: DIR/<family>_bench_<tag>_<YYYYMMDD_HHMMSS>.log (UTC). `tag` ("before", "after")
// may hold letters, digits, '-' and '_' only (Error otherwise, naming the tag).
std::string bench_log_path(const std::string& dir, Family family, std::string_view tag,
                           std::chrono::system_clock::time_point time);

// The same rows as a fixed-width text table for people (the .log file bench writes next to the results):
// a few header lines with what is common to all rows (family, device, gfx, cu_num, protocol, version),
// then one line per row: key cells, role, source, backend, kernel, split, us (median, min, p90), TFLOPS,
// GB/s, errRatio, verdict and reason.
std::string render_results_text(std::span<const ResultRow> rows);

}  // namespace cktune
