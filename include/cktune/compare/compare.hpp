#pragma once
// Before/after comparison of two measurement files: per-shape speedups, summary statistics, and the
// breakdown per (N,K) group (per MoE configuration) and size class that `compare` and `report` print.
#include <array>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>
#include <utility>

#include <nlohmann/json_fwd.hpp>

#include "cktune/results/results.hpp"

namespace cktune {

// Which number is compared. Speedup > 1 always means "after is better".
enum class Metric {
  Us,      // speedup = before_us / after_us
  Tflops,  // speedup = after_tflops / before_tflops
};
std::string_view to_string(Metric metric);
std::optional<Metric> metric_from_string(std::string_view text);

// Size classes by M (token for fused MoE): how the shape behaves in serving.
enum class SizeClass {
  Decode,   // 1-63
  Medium,   // 64-512
  Prefill,  // > 512
};
inline constexpr SizeClass kAllSizeClasses[] = {SizeClass::Decode, SizeClass::Medium, SizeClass::Prefill};
std::string_view to_string(SizeClass c);
std::string_view size_class_range(SizeClass c);  // "1-63", "64-512", ">512"
SizeClass size_class(long m);

// The noise rule (docs/cli/compare.md): a shape changed only when BOTH
//   1. the ratio of medians is beyond the threshold (speedup > 1 + t or < 1 - t), a floor that keeps
//      tiny but consistent differences from counting, and
//   2. the measured p10..p90 intervals of the two runs do not overlap (improved: after's interval lies
//      entirely on the better side of before's; regressed: entirely on the worse side).
// Rows without p10/p90 (AITER op-test output) are judged by rule 1 alone and marked "median only".
enum class Change {
  Improved,     // better beyond the threshold and outside the noise
  Regressed,    // worse beyond the threshold and outside the noise
  WithinNoise,  // the difference is inside the threshold or the p10..p90 intervals overlap
  NotMeasured,  // one side has no usable time (unsupported, error, timeout): not in the statistics
};
std::string_view to_string(Change c);

// What was read from one input file.
struct CompareInput {
  std::string path;
  std::string format;  // "cktune-results", "aiter-markdown:test_gemm_a8w8_blockscale", "aiter-csv:test_moe_2stage"
  std::vector<ResultRow> rows;
};

// Read a cktune results file or an AITER op-test output (markdown table in a log, or the CSV the test
// saves), telling them apart by content. Error (exit 1) naming the file for anything else.
CompareInput load_compare_input(const std::string& path);

// True when the input holds rows of role `against` (a `bench --against` run: before and after measured
// interleaved in one file).
bool has_against_rows(const CompareInput& in);

// Split an interleaved results file into before (the `against` rows, relabelled `role`) and after (the
// rows of `role`). Error naming the file when it has no `against` rows.
std::pair<CompareInput, CompareInput> split_interleaved(CompareInput in, ResultRole role);
// One bench file's vendor baseline (its `baseline` rows, as before) against what the runtime runs (its
// dispatch rows, as after): the tuned table against cuBLASLt, from `bench --config TUNED`. Throws Error
// when the file holds no baseline rows.
std::pair<CompareInput, CompareInput> split_vs_baseline(CompareInput in);
// Rows of role `before_role` (relabelled `role`) as before, rows of `role` as after; others dropped.
std::pair<CompareInput, CompareInput> split_by_role(CompareInput in, ResultRole before_role, ResultRole role);

// A model preset at a tensor-parallel degree, as `compare --models` groups shapes: a GEMM shape (any M)
// is the model's when its (N, K) is one of the preset's layers at that degree; a fused-MoE shape (any
// token) when its model_dim, inter_dim, expert and topk are those of the preset's expert layers.
struct ModelShapes {
  std::string model;  // preset name as given
  int tp = 1;
  std::set<std::pair<long long, long long>> gemm_nk;
  std::set<std::array<long long, 4>> moe;  // model_dim, inter_dim, expert, topk
  bool matches(const ProblemKey& key) const;
  std::string label() const;  // "llama-4-maverick TP8"
};

// "NAME@TP" (e.g. "llama-4-maverick@8", NAME a preset of configs/models or an alias) -> its layers at
// that degree, from capture's planner (DeepSeek's shared experts both folded into the MoE and as GEMMs,
// so either way of capturing matches). Error (exit 1) for a malformed spec or an unknown preset.
ModelShapes model_shapes(std::string_view spec);

struct CompareOptions {
  Metric metric = Metric::Us;
  double threshold_pct = 3.0;               // |speedup - 1| above this counts as improved/regressed
  ResultRole role = ResultRole::Dispatch;   // which rows of each file are compared
  std::string backend;                      // only rows of this backend ("" = any)
  // Key columns the per-group breakdown groups by ("" = every key column but M/token: one group per
  // (N,K) or MoE configuration). Error when a column is not a key column of a compared family.
  std::vector<std::string> group_by;
  std::vector<ModelShapes> models;          // per-model summary (the PTPC study's table); empty = none
};

struct ShapeComparison {
  ProblemKey key;
  std::string group;         // ProblemKey::group(): "N,K" or the MoE configuration without token
  long size = 0;             // M or token
  SizeClass size_class = SizeClass::Decode;
  double before = 0, after = 0;  // metric values (us or TFLOPS); -1/inf kept for "not measured"
  // p10..p90 of each side in metric units (for TFLOPS the interval of the times, converted); -1 when the
  // input recorded no spread.
  double before_lo = -1, before_hi = -1, after_lo = -1, after_hi = -1;
  bool spread_known = false;     // both sides have p10/p90: rule 2 applied
  double speedup = 0;            // 0 when NotMeasured
  double speedup_lo = 0, speedup_hi = 0;  // the speedup's range from the two intervals (= speedup when unknown)
  double before_us = -1, after_us = -1;   // median latency, whatever the metric (absolute numbers for report)
  Change change = Change::NotMeasured;
  std::string before_kernel, after_kernel;
  std::string before_backend, after_backend;
  std::string after_gfx;          // where the after run measured, as its row records it ("" / 0: not recorded)
  long after_cu_num = 0;
  // Fused MoE: the bytes the after run's launches moved (its bw × time: the experts its routing reached), where a
  // cktune results row records them; 0: unknown (the key's expectation, ProblemKey::min_bytes(), stands in).
  double after_bytes = 0;
  std::string note;              // NotMeasured: why ("after: failed: launch failed ..."); "baseline moved ..."
  // Two separate runs: the vendor baseline's speedup on this shape, the same kernel timed in both runs
  // (before/after of its time), i.e. how much the machine itself changed here; 0 when unknown.
  double baseline_speedup = 0;
};

struct SpeedupStats {
  size_t count = 0;  // shapes with a speedup (measured on both sides)
  double mean = 0, geomean = 0, min = 0, max = 0;
  size_t improved = 0, regressed = 0, within_noise = 0;
  size_t not_measured = 0;
};

// Statistics of the shapes' speedups (NotMeasured ones only counted).
SpeedupStats speedup_stats(const std::vector<const ShapeComparison*>& shapes);

struct GroupSummary {
  Family family = Family::A8W8Blockscale;
  std::string group;                                  // ProblemKey::group()
  std::string label;                                  // "N=7168,K=2112" (column=value)
  SpeedupStats all;
  std::array<SpeedupStats, 3> by_class;               // indexed by SizeClass
};

// The shapes of one family that belong to one model preset at one TP degree.
struct ModelSummary {
  std::string model;
  int tp = 1;
  Family family = Family::A8W8Blockscale;
  SpeedupStats stats;
};

struct Comparison {
  CompareInput before_info, after_info;  // path and format; rows are dropped after matching
  CompareOptions options;
  std::vector<ShapeComparison> shapes;        // matched, sorted by family, group, size
  std::vector<ProblemKey> only_before, only_after;
  SpeedupStats overall;
  std::array<SpeedupStats, 3> by_class;       // indexed by SizeClass
  std::vector<GroupSummary> groups;           // sorted by family, group
  std::vector<ModelSummary> models;           // in the order of CompareOptions::models, then family
  std::vector<std::string> warnings;          // gfx/cu_num differ, duplicate rows, ...
  // Before and after come from two files, so from two runs: the p10..p90 of each is measured inside its
  // run and cannot show a machine that changed between them (docs/reliability.md). False when both
  // sides are rows of one file (bench --against, --vs-baseline).
  bool separate_runs = false;
  // Two separate runs whose files both hold the vendor baseline (bench times it unless --no-baseline): the
  // same kernel measured twice is a control for the machine. `count` shapes had it on both sides, `moved`
  // of them beyond the threshold; `changed` shapes were called improved/regressed, and `explained` of
  // those changed no more than their baseline did (speedup / baseline_speedup within the threshold).
  struct BaselineDrift {
    size_t count = 0, moved = 0, changed = 0, explained = 0;
    double geomean = 0, min = 0, max = 0;
  } baseline_drift;
  std::vector<Family> families() const;       // families present in `shapes`, in enum order
};

// Match rows by (family, key cells) and compute every number. Inputs are taken by value so their rows
// can be dropped. Error when no shape matches (names the files, role and hint).
Comparison compare(CompareInput before, CompareInput after, const CompareOptions& options);

// A shape called improved or regressed whose speedup is within the threshold of its vendor baseline's
// speedup between the same two runs (ShapeComparison::baseline_speedup known): the machine moved as much.
bool explained_by_baseline(const ShapeComparison& s, double threshold_pct);
// What the two sides' runs mean for the verdicts, in one line ("runs: ...").
std::string runs_text(const Comparison& c);
// The rule above in one line, for outputs ("improved/regressed: speedup beyond ±3% and p10..p90 ...").
std::string noise_rule_text(const CompareOptions& options);
// Relative width of a side's interval: (hi - lo) / median in percent; -1 when unknown.
double spread_pct(double lo, double hi, double median);

// "x1.234" style helpers shared by the renderers.
std::string format_speedup(double s);
// Label of a group: "N=7168,K=2112" for GEMMs, "model_dim=7168,inter_dim=256,..." for MoE.
std::string group_label(const ProblemKey& key);

// The human-readable output of `cktune compare` (per-shape table, summary, per-class and per-group
// breakdown, unmatched shapes, warnings).
std::string render_comparison_text(const Comparison& c);
// One CSV line per shape (family, group, size, before/after with p10/p90, speedup and its range, change).
std::string render_comparison_csv(const Comparison& c);
// The same content as JSON (stdout of `compare --json`; also embedded in report provenance).
nlohmann::json comparison_json(const Comparison& c);

}  // namespace cktune
