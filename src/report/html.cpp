// The report as one self-contained HTML page: inline CSS, inline SVG charts, no script, no external reference.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "cktune/report/report.hpp"

namespace cktune {

namespace {

std::string escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// Escaped text with `code spans` as <code>, matching what the Markdown shows.
std::string inline_text(std::string_view s) {
  std::string out;
  bool in_code = false;
  size_t start = 0;
  for (size_t tick = s.find('`'); tick != std::string_view::npos; tick = s.find('`', start)) {
    out += escape(s.substr(start, tick - start));
    out += in_code ? "</code>" : "<code>";
    in_code = !in_code;
    start = tick + 1;
  }
  out += escape(s.substr(start));
  if (in_code) out += "</code>";  // an unpaired backtick: close what was opened
  return out;
}

constexpr std::string_view kStyle = R"(
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 1200px;
       padding: 0 1em; color: #1f2328; line-height: 1.45; }
h1 { border-bottom: 2px solid #d0d7de; padding-bottom: .3em; }
h2 { border-bottom: 1px solid #d0d7de; padding-bottom: .2em; margin-top: 1.8em; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: .6em 0 1.2em; font-size: 13px; }
th, td { border: 1px solid #d0d7de; padding: 3px 8px; white-space: nowrap; }
th { background: #f6f8fa; position: sticky; top: 0; }
tr:nth-child(even) td { background: #fbfcfd; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.up { color: #1a7f37; font-weight: 600; }
td.down { color: #cf222e; font-weight: 600; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
pre { background: #f6f8fa; border: 1px solid #d0d7de; padding: .8em; overflow-x: auto; }
.charts { display: flex; flex-wrap: wrap; gap: 12px; }
figure { margin: 0; border: 1px solid #d0d7de; border-radius: 6px; padding: 6px; background: #fff; }
figcaption { font-size: 12px; color: #57606a; }
figure.wide { margin: 8px 0 16px; overflow-x: auto; }
h2.verdict { padding: 6px 10px; border-radius: 6px; border-bottom: none; }
h2.verdict.yes { background: #dafbe1; color: #116329; }
h2.verdict.partly { background: #fff8c5; color: #7d4e00; }
h2.verdict.no { background: #ffebe9; color: #a40e26; }
figure.wide svg { max-width: 100%; height: auto; }
)";

std::string table(const ReportBlock& b) {
  std::string out = "<div class=\"scroll\"><table>\n<thead><tr>";
  for (const auto& h : b.head) out += fmt::format("<th>{}</th>", escape(h));
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : b.rows) {
    out += "<tr>";
    for (size_t i = 0; i < row.size(); ++i) {
      std::string cls;
      if (row[i] == "improved") cls = "up";
      else if (row[i] == "regressed") cls = "down";
      else if (i < b.right.size() && b.right[i]) cls = "num";
      out += cls.empty() ? fmt::format("<td>{}</td>", inline_text(row[i]))
                         : fmt::format("<td class=\"{}\">{}</td>", cls, inline_text(row[i]));
    }
    out += "</tr>\n";
  }
  out += "</tbody></table></div>\n";
  return out;
}

}  // namespace

std::string render_report_html(const Report& r) {
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{}</style>\n"
      "</head>\n<body>\n<h1>{}</h1>\n",
      escape(r.title), kStyle, escape(r.title));
  bool in_charts = false;
  for (const auto& b : r.blocks) {
    if (in_charts && b.kind != ReportBlock::Kind::Chart) {
      out += "</div>\n";
      in_charts = false;
    }
    switch (b.kind) {
      case ReportBlock::Kind::Heading: {
        // The verdict heading is coloured by its decision, so it reads at a glance.
        std::string cls;
        if (b.text.rfind("Verdict: do not", 0) == 0) cls = " class=\"verdict no\"";
        else if (b.text.rfind("Verdict: deploy without", 0) == 0) cls = " class=\"verdict partly\"";
        else if (b.text.rfind("Verdict: ", 0) == 0) cls = " class=\"verdict yes\"";
        out += fmt::format("<h{0}{2}>{1}</h{0}>\n", std::clamp(b.level, 1, 6), inline_text(b.text), cls);
        break;
      }
      case ReportBlock::Kind::Paragraph: out += fmt::format("<p>{}</p>\n", inline_text(b.text)); break;
      case ReportBlock::Kind::Bullets:
        out += "<ul>\n";
        for (const auto& i : b.items) out += fmt::format("<li>{}</li>\n", inline_text(i));
        out += "</ul>\n";
        break;
      case ReportBlock::Kind::Table: out += table(b); break;
      case ReportBlock::Kind::Code: out += fmt::format("<pre><code>{}</code></pre>\n", escape(b.text)); break;
      case ReportBlock::Kind::Chart: {
        if (b.group == kOverviewChart) {
          // Full width, outside the grid of small per-group charts.
          if (in_charts) {
            out += "</div>\n";
            in_charts = false;
          }
          std::string svg = overview_chart_svg(r.comparison);
          if (!svg.empty()) out += fmt::format("<figure class=\"wide\">\n{}</figure>\n", svg);
          break;
        }
        if (!in_charts) {
          out += "<div class=\"charts\">\n";
          in_charts = true;
        }
        const GroupSummary& g = r.comparison.groups[b.group];
        out += fmt::format("<figure>\n{}<figcaption>{} {}: {} shapes, geomean {}{}</figcaption>\n</figure>\n",
                           speedup_chart_svg(r.comparison, b.group), escape(family_name(g.family)), escape(g.label),
                           g.all.count, g.all.count ? format_speedup(g.all.geomean) : "n/a",
                           g.all.not_measured ? fmt::format(", {} not measured", g.all.not_measured) : "");
        break;
      }
    }
  }
  if (in_charts) out += "</div>\n";
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace cktune
