#pragma once
// `cktune report`: one document (environment, shapes, settings, the full before/after comparison,
// statistics, file locations, the lines to use the tuned table) rendered as Markdown and as a
// self-contained HTML page with inline SVG charts of speedup against M per (N,K) group.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cktune/compare/compare.hpp"

namespace cktune {

struct ReportOptions {
  std::string before, after;       // measurement files (cktune results or AITER op-test output)
  std::string tuned;               // the tuned CSV the after run used ("" = not given)
  std::string provenance;          // provenance JSON; "" = look for <tuned>.provenance.json
  std::string markdown_path;       // where the Markdown goes ("" = none)
  std::string html_path;           // where the HTML goes ("" = none)
  CompareOptions compare;
  std::string command_line;        // the cktune command that made the report
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

struct TunedTableInfo {
  std::string path;                    // absolute
  Family family = Family::A8W8Blockscale;
  size_t rows = 0;
  std::vector<std::string> machines;   // distinct "gfx/cu_num" of the rows
  std::vector<std::string> groups;     // distinct (N,K) / MoE configurations, labelled
  size_t kernels = 0;                  // distinct kernel names
  std::array<size_t, 3> by_class{};    // rows per size class
};

struct Report {
  std::string title;
  std::string date;                    // ISO 8601 UTC
  Comparison comparison;
  std::optional<TunedTableInfo> tuned;
  std::string provenance_path;         // absolute; "" when none
  nlohmann::json provenance;           // null when none
  std::vector<ReportBlock> blocks;
};

// Read the inputs, compare, and lay out the document. Errors (Error / InputError) name the file at fault.
Report build_report(const ReportOptions& options);

std::string render_report_markdown(const Report& report);
// Self-contained: inline CSS and inline SVG, no script, no external reference.
std::string render_report_html(const Report& report);

// The SVG chart of one group: speedup (y, linear, with a 1.0 reference line) against M or token (x, log2),
// one point per measured shape joined in size order, size-class boundaries at 64 and 512 marked.
std::string speedup_chart_svg(const Comparison& comparison, size_t group);

// build_report + write the requested files atomically; returns the Markdown (printed to stdout by the
// CLI when no output file is named).
std::string run_report(const ReportOptions& options);

}  // namespace cktune
