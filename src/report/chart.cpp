// Inline SVG chart of speedup against M (token) for one group, drawn by hand: no library, no script.
#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "cktune/report/report.hpp"

namespace cktune {

namespace {

constexpr double kWidth = 560, kPlotHeight = 190;
constexpr double kLeft = 52, kRight = 14, kTitleLine = 15, kBottom = 40;
constexpr size_t kTitleChars = 72;  // about what fits in kWidth at 12px bold

std::string escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

// A tick step of 1, 2, 2.5 or 5 times a power of ten giving about `want` ticks over `span`.
double nice_step(double span, int want) {
  double raw = span / want;
  double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * p >= raw) return m * p;
  return 10 * p;
}

std::string size_text(double v) {
  if (v >= 1024 && std::fmod(v, 1024) == 0) return fmt::format("{}k", v / 1024);
  return fmt::format("{}", v);
}

}  // namespace

std::string speedup_chart_svg(const Comparison& c, size_t group) {
  const GroupSummary& g = c.groups.at(group);
  struct Point {
    double size, speedup;
    Change change;
  };
  std::vector<Point> pts;
  for (const auto& s : c.shapes)
    if (s.key.family == g.family && s.group == g.group && s.change != Change::NotMeasured)
      pts.push_back({static_cast<double>(std::max(1L, s.size)), s.speedup, s.change});
  std::sort(pts.begin(), pts.end(), [](const Point& a, const Point& b) { return a.size < b.size; });

  // Domains: log2 of size; speedup always including 1.0.
  double x0 = 0, x1 = 1, y0 = 1, y1 = 1;
  if (!pts.empty()) {
    x0 = std::floor(std::log2(pts.front().size));
    x1 = std::ceil(std::log2(pts.back().size));
    for (const auto& p : pts) {
      y0 = std::min(y0, p.speedup);
      y1 = std::max(y1, p.speedup);
    }
  }
  if (x1 <= x0) {
    x0 -= 1;
    x1 += 1;
  }
  // Half a power of two of air on both sides, so edge points and class lines are not on the frame.
  const double tick0 = x0, tick1 = x1;
  x0 -= 0.4;
  x1 += 0.4;
  double pad = std::max(0.05, (y1 - y0) * 0.08);
  y0 = std::max(0.0, y0 - pad);
  y1 += pad;
  // Long MoE labels wrap at commas onto more title lines; the plot moves down to make room.
  std::vector<std::string> title_lines{std::string(family_name(g.family))};
  for (size_t start = 0; start <= g.label.size();) {
    size_t comma = g.label.find(',', start);
    std::string part = g.label.substr(start, comma == std::string::npos ? std::string::npos : comma - start + 1);
    if (title_lines.back().size() + 1 + part.size() > kTitleChars) title_lines.push_back(part);
    else title_lines.back() += (title_lines.back().empty() || title_lines.back().back() == ',' ? "" : " ") + part;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  const double kTop = 16 + kTitleLine * static_cast<double>(title_lines.size());
  const double kHeight = kTop + kPlotHeight + kBottom;
  const double pw = kWidth - kLeft - kRight, ph = kPlotHeight;
  auto px = [&](double size) { return kLeft + (std::log2(size) - x0) / (x1 - x0) * pw; };
  auto py = [&](double s) { return kTop + (y1 - s) / (y1 - y0) * ph; };

  std::string title = fmt::format("{} {}", family_name(g.family), g.label);
  std::string size_name(spec(g.family).size_column);
  std::string out = fmt::format(
      "<svg width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\" aria-label=\"speedup against {2}: {3}\" "
      "font-family=\"sans-serif\" font-size=\"11\">\n",
      kWidth, kHeight, escape(size_name), escape(title));
  for (size_t i = 0; i < title_lines.size(); ++i)
    out += fmt::format("<text x=\"8\" y=\"{}\" font-size=\"12\" font-weight=\"600\">{}</text>\n",
                       16 + kTitleLine * static_cast<double>(i), escape(title_lines[i]));
  out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#fff\" stroke=\"#d0d7de\"/>\n", kLeft,
                     kTop, pw, ph);

  // y grid and labels.
  double step = nice_step(y1 - y0, 5);
  for (double v = std::ceil(y0 / step) * step; v <= y1 + 1e-9; v += step) {
    out += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#eaeef2\"/>\n", kLeft,
                       py(v), kLeft + pw, py(v));
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{:.2f}x</text>\n", kLeft - 4, py(v) + 4, v);
  }
  // x ticks at powers of two, thinned to at most 12 labels.
  int span = static_cast<int>(tick1 - tick0);
  int every = std::max(1, (span + 11) / 12);
  for (int e = static_cast<int>(tick0); e <= static_cast<int>(tick1); e += every) {
    double v = std::exp2(e);
    out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#eaeef2\"/>\n", px(v),
                       kTop, kTop + ph);
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", px(v), kTop + ph + 14,
                       size_text(v));
  }
  out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{} (log2)</text>\n", kLeft + pw / 2,
                     kHeight - 6, escape(size_name));
  out += fmt::format(
      "<text x=\"12\" y=\"{0:.1f}\" text-anchor=\"middle\" transform=\"rotate(-90 12 {0:.1f})\">speedup</text>\n",
      kTop + ph / 2);

  // Size-class boundaries (decode < 64 <= medium <= 512 < prefill), each visible class named at the top.
  // The boundary sits between 63 and 64 and between 512 and 513: drawn at 64 and 512.
  for (double b : {64.0, 512.0}) {
    double lb = std::log2(b);
    if (lb <= x0 || lb >= x1) continue;
    out += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#8c959f\" stroke-dasharray=\"4 3\"/>\n",
        px(b), kTop, kTop + ph);
  }
  const std::pair<double, double> classes[] = {{0, 6}, {6, 9}, {9, 40}};  // log2 ranges of decode, medium, prefill
  for (size_t i = 0; i < 3; ++i) {
    double lo = std::max(classes[i].first, x0), hi = std::min(classes[i].second, x1);
    if (hi - lo < 0.8) continue;  // too narrow to label
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" fill=\"#8c959f\">{}</text>\n",
                       (px(std::exp2(lo)) + px(std::exp2(hi))) / 2, kTop + 12, to_string(kAllSizeClasses[i]));
  }
  // The 1.0 reference line.
  out += fmt::format(
      "<line x1=\"{0:.1f}\" y1=\"{2:.1f}\" x2=\"{1:.1f}\" y2=\"{2:.1f}\" stroke=\"#57606a\" stroke-width=\"1.5\"/>\n", kLeft,
      kLeft + pw, py(1.0));

  if (pts.size() > 1) {
    std::string poly;
    for (const auto& p : pts) poly += fmt::format("{:.1f},{:.1f} ", px(p.size), py(p.speedup));
    poly.pop_back();
    out += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"#0969da\" stroke-width=\"1.5\"/>\n", poly);
  }
  for (const auto& p : pts) {
    const char* color = p.change == Change::Improved ? "#1a7f37" : p.change == Change::Regressed ? "#cf222e" : "#57606a";
    out += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\"><title>{}={}: {}</title></circle>\n", px(p.size),
        py(p.speedup), color, escape(size_name), p.size, format_speedup(p.speedup));
  }
  if (pts.empty())
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">no measured shape</text>\n",
                       kLeft + pw / 2, kTop + ph / 2);
  out += "</svg>\n";
  return out;
}

}  // namespace cktune
