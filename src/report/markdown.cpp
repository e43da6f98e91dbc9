// The report as GitHub-flavoured Markdown.
#include <fmt/format.h>

#include "cktune/report/report.hpp"

namespace cktune {

namespace {

std::string cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out.empty() ? " " : out;
}

std::string table(const ReportBlock& b) {
  std::string out = "|";
  for (const auto& h : b.head) out += fmt::format(" {} |", cell(h));
  out += "\n|";
  for (size_t i = 0; i < b.head.size(); ++i) out += i < b.right.size() && b.right[i] ? "---:|" : "---|";
  out += "\n";
  for (const auto& row : b.rows) {
    out += "|";
    for (const auto& c : row) out += fmt::format(" {} |", cell(c));
    out += "\n";
  }
  return out;
}

// A chart has no Markdown form: its data as one line per group instead.
std::string chart_data(const Comparison& c, size_t group) {
  if (group == kOverviewChart) return "(The HTML report draws all groups on one chart; the numbers are in the tables below.)";
  const GroupSummary& g = c.groups[group];
  std::string out = fmt::format("**{} {}**:", family_name(g.family), g.label);
  for (const auto& s : c.shapes) {
    if (s.key.family != g.family || s.group != g.group) continue;
    out += fmt::format(" {}={} {};", spec(s.key.family).size_column, s.size, format_speedup(s.speedup));
  }
  if (out.back() == ';') out.pop_back();
  return out;
}

}  // namespace

std::string render_report_markdown(const Report& r) {
  std::string out = fmt::format("# {}\n\n", r.title);
  for (const auto& b : r.blocks) {
    switch (b.kind) {
      case ReportBlock::Kind::Heading: out += fmt::format("{} {}\n\n", std::string(static_cast<size_t>(b.level), '#'), b.text); break;
      case ReportBlock::Kind::Paragraph: out += b.text + "\n\n"; break;
      case ReportBlock::Kind::Bullets:
        for (const auto& i : b.items) out += fmt::format("- {}\n", i);
        out += "\n";
        break;
      case ReportBlock::Kind::Table: out += table(b) + "\n"; break;
      case ReportBlock::Kind::Code: out += fmt::format("```sh\n{}\n```\n\n", b.text); break;
      case ReportBlock::Kind::Chart: out += chart_data(r.comparison, b.group) + "\n\n"; break;
    }
  }
  while (out.size() > 1 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n') out.pop_back();
  return out;
}

}  // namespace cktune
