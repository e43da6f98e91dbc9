#pragma once
// `cktune report`: one document (environment, shapes, settings, the full before/after comparison,
// statistics, file locations, the lines to use the tuned table) rendered as Markdown and as a
// self-contained HTML page with inline SVG charts of speedup against M per (N,K) group.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cktune/compare/compare.hpp"
#include "cktune/core/peaks.hpp"

namespace cktune {

struct ReportOptions {
  std::string before, after;       // measurement files (cktune results or AITER op-test output); before = ""
                                   // with an after file of `bench --against` (before and after interleaved)
  std::string counts;              // capture's --json summary: call counts per shape ("" = unweighted)
  std::string deploy_table;        // where the filtered table goes when rows must be dropped ("" = next to
                                   // the Markdown/HTML output, or none when the report goes to stdout)
  std::string tuned;               // the tuned CSV the after run used ("" = not given)
  std::string provenance;          // provenance JSON; "" = look for <tuned>.provenance.json
  std::vector<std::string> profiles;  // tune's profiles (-o2) for its fused-MoE pipeline times, one a tune that wrote
                                      // the table's rows (a merge of shards: several); empty = the provenance's
                                      // "profile" / "profiles" that still exist
  std::string markdown_path;       // where the Markdown goes ("" = none)
  std::string html_path;           // where the HTML goes ("" = none)
  CompareOptions compare;
  std::string command_line;        // the cktune command that made the report
  // Peaks for the hardware floors in place of the after device's datasheet figures (0 = the datasheet's):
  // the tensor rate of the compared shapes' math type in TFLOP/s, and the memory bandwidth in TB/s.
  double peak_tflops = 0, peak_tbps = 0;
};

// A neutral document, so the Markdown and the HTML carry exactly the same content.
struct ReportBlock {
  enum class Kind { Heading, Paragraph, Bullets, Table, Code, Chart };
  Kind kind = Kind::Paragraph;
  int level = 2;                                // Heading
  std::string text;                             // Heading, Paragraph, Code (may hold several lines)
  std::vector<std::string> items;               // Bullets
  std::vector<std::string> head;                // Table
  std::vector<bool> right;                      // Table: right-aligned columns
  std::vector<std::vector<std::string>> rows;   // Table
  size_t group = 0;                             // Chart: index into Comparison::groups
};

// A machine as AITER's tables key it. A field one side does not record (empty gfx, cu_num 0) matches any value.
struct MachineId {
  std::string gfx;  // "gfx942", "sm_90"
  long cu_num = 0;
  bool matches(const MachineId& o) const {
    return (gfx.empty() || o.gfx.empty() || gfx == o.gfx) && (cu_num == 0 || o.cu_num == 0 || cu_num == o.cu_num);
  }
};

// One row of a tuned table as the report checks it against bench: its machine, the kernel it names and the time
// tune measured for it.
struct TunedTime {
  MachineId machine;
  std::string kernel;
  double us = -1;
};

struct TunedTableInfo {
  std::string path;                    // absolute
  Family family = Family::A8W8Blockscale;
  size_t rows = 0;
  std::vector<std::string> machines;   // distinct "gfx/cu_num" of the rows
  std::vector<std::string> groups;     // distinct (N,K) / MoE configurations, labelled
  size_t kernels = 0;                  // distinct kernel names
  std::array<size_t, 3> by_class{};    // rows per size class
  // Per key (ProblemKey::to_string()), each machine's row: the kernel it names and the time tune measured for it.
  // GEMM: the row's `us`. Fused MoE: the pipeline (kernelName1+kernelName2, or the one-launch kernel) and its time
  // in tune's profile (`profile`, the profile row of the same machine), -1 without one: the row's `us` is us1 + us2
  // as AITER writes it, not the whole pipeline with the sorting that bench times.
  std::map<std::string, std::vector<TunedTime>> timed;
  std::string profile;                 // fused MoE: the profiles the times came from (absolute, ", "-separated; "" = none)

  // The row of `key` that a runtime on machine `m` loads (AITER keys rows by cu_num too); nullptr when the table
  // has none for that machine.
  const TunedTime* row_for(const std::string& key, const MachineId& m) const;
};

// Did a later bench reproduce tune's times? Over the compared shapes whose after run ran the kernel the
// tuned table names for that key: bench's median time over the table's `us`.
struct TuneBenchAgreement {
  size_t compared = 0;       // shapes with both times
  size_t within = 0;         // |bench/tune - 1| <= kTolerance
  size_t other_kernel = 0;   // the after run ran another kernel than the row names (another table, default)
  double geomean = 0, min = 0, max = 0;  // of bench/tune
  std::vector<std::string> outside;      // "M=...,N=...,K=... kernel: tune X us, bench Y us (Z x)", worst first
  // Compared shapes with no row of their own in the table for the machine the after run measured on: the runtime
  // serves them from the row of a padded M (or runs the default); of those, how many regressed against the before
  // and (when the after run has the vendor baseline) how many are slower than the vendor library.
  size_t no_row = 0, no_row_regressed = 0, no_row_vendor_slower = 0;
  bool needs_profile = false;  // fused MoE without tune's profile: no tune times to compare with
  static constexpr double kTolerance = 0.10;
};
// vs_vendor: the after run's tuned-vs-vendor comparison, when there is one.
TuneBenchAgreement tune_bench_agreement(const Comparison& comparison, const TunedTableInfo& tuned,
                                        const Comparison* vs_vendor = nullptr);

// The decision the report opens with (docs/cli/report.md):
//   DoNotDeploy   when a shape failed after tuning (and measured before), or nothing improved outside noise;
//   DeployWithout when some shapes regressed outside noise: deploy the table without their rows;
//   Deploy        otherwise.
struct ReportVerdict {
  enum class Kind { Deploy, DeployWithout, DoNotDeploy };
  Kind kind = Kind::DoNotDeploy;
  std::string headline;             // "deploy", "deploy without rows M=128,N=4096,K=7168", "do not deploy"
  std::vector<std::string> reasons;
  // Shapes whose tuned rows are left out (regressed outside noise), with the machine they regressed on: the rows
  // of other machines stay.
  struct Dropped {
    ProblemKey key;
    MachineId machine;
  };
  std::vector<Dropped> drop;
  std::string command;              // the one command that deploys / produces the table to deploy
  std::string deploy_table;         // absolute path of the filtered table written ("" = none written)
  size_t dropped_rows = 0;          // tuned rows left out of deploy_table
};

// Speedups weighted by how often the server ran each shape (capture's call counts).
struct CallWeighting {
  std::string path;                 // the counts file (absolute)
  std::uint64_t total_calls = 0;    // calls of the compared families in the counts file
  std::uint64_t covered_calls = 0;  // calls landing on a compared, measured shape
  double geomean = 0;               // call-weighted geometric-mean speedup over the covered calls
  double time_saved_pct = 0;        // us metric: 1 - sum(calls*after)/sum(calls*before), in percent
};

// How far each shape of the after run is from its hardware floor (core/peaks.hpp): the larger of its FLOPs at
// the tensor peak and its fewest bytes at the memory bandwidth of the device the after run measured on.
struct FloorShape {
  ProblemKey key;
  SizeClass size_class = SizeClass::Decode;
  MathType math = MathType::Fp8;
  HardwareFloor floor;
  double bytes = 0;       // the floor's bytes: the after run's own (fused MoE) or the key's
  double after_us = 0;    // what the runtime runs with the tuned table
  double vendor_us = -1;  // the vendor library in the same after run; -1 when not timed
};
struct HardwareFloors {
  std::string device;                // the after run's device ("" when its rows name none)
  std::optional<DevicePeaks> peaks;  // nullopt: no floors, `missing` says why and how to give them
  std::string missing;
  std::vector<FloorShape> shapes;    // measured shapes, in the comparison's order
  std::map<ProblemKey, size_t> index;  // key -> position in shapes
  const FloorShape* find(const ProblemKey& key) const;
};
// devices: the distinct device names of the after run's rows. Peaks given in `options` replace the datasheet's.
HardwareFloors hardware_floors(const Comparison& comparison, const Comparison* vs_vendor,
                               const std::vector<std::string>& devices, const ReportOptions& options);

struct Report {
  std::string title;
  std::string date;                    // ISO 8601 UTC
  Comparison comparison;
  // The after run's vendor baseline against its dispatch rows (`compare --vs-baseline`), when the after
  // file holds baseline rows and dispatch rows are compared: the tuned table against the vendor library.
  std::optional<Comparison> vs_vendor;
  std::optional<TunedTableInfo> tuned;
  std::optional<TuneBenchAgreement> agreement;  // after runs of dispatch rows, with --tuned
  std::string provenance_path;         // absolute; "" when none
  nlohmann::json provenance;           // null when none
  ReportVerdict verdict;
  std::optional<CallWeighting> weighting;
  HardwareFloors floors;
  std::vector<ReportBlock> blocks;
};

// The verdict for a comparison (and the tuned table, when given: it is needed for the command).
ReportVerdict decide(const Comparison& comparison, const std::optional<TunedTableInfo>& tuned);

// Read capture's --json output and weight the comparison's speedups by its call counts. Fused-MoE token
// counts are rounded up to a power of two first, as AITER's lookup does; GEMM M is matched exactly.
CallWeighting weight_by_calls(const Comparison& comparison, const std::string& counts_path);

// The tuned table without the rows of `drop` (matched on the untuned key cells and on the machine: a row of another
// gfx/cu_num stays). Returns the number of rows left out.
size_t write_filtered_table(const std::string& tuned, Family family, const std::vector<ReportVerdict::Dropped>& drop,
                            const std::string& out);

// Read the inputs, compare, and lay out the document. Errors (Error / InputError) name the file at fault.
Report build_report(const ReportOptions& options);

std::string render_report_markdown(const Report& report);
// Self-contained: inline CSS and inline SVG, no script, no external reference.
std::string render_report_html(const Report& report);

// The SVG chart of one group: speedup (y, linear, with a 1.0 reference line) against M or token (x, log2),
// one point per measured shape with its p10..p90 range as a bar (no line: sizes between points were not
// measured), size-class boundaries at 64 and 512 marked.
std::string speedup_chart_svg(const Comparison& comparison, size_t group);

// Every group on the same axes: speedup (top panel) and after/before latency in µs (bottom panel, log
// scale) against M or token, one colour per group, p10..p90 bars, a legend. Empty when nothing is measured.
std::string overview_chart_svg(const Comparison& comparison);
inline constexpr size_t kOverviewChart = static_cast<size_t>(-1);  // ReportBlock::group of the overview

// build_report + write the requested files atomically; returns the Markdown (printed to stdout by the
// CLI when no output file is named).
std::string run_report(const ReportOptions& options);

}  // namespace cktune
