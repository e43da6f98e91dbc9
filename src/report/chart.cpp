// Inline SVG charts of speedup (and latency) against M (token), drawn by hand: no library, no script.
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
    double size, speedup, lo, hi;
    Change change;
  };
  std::vector<Point> pts;
  for (const auto& s : c.shapes)
    if (s.key.family == g.family && s.group == g.group && s.change != Change::NotMeasured)
      pts.push_back({static_cast<double>(std::max(1L, s.size)), s.speedup, s.speedup_lo, s.speedup_hi, s.change});
  std::sort(pts.begin(), pts.end(), [](const Point& a, const Point& b) { return a.size < b.size; });

  // Domains: log2 of size; speedup always including 1.0.
  double x0 = 0, x1 = 1, y0 = 1, y1 = 1;
  if (!pts.empty()) {
    x0 = std::floor(std::log2(pts.front().size));
    x1 = std::ceil(std::log2(pts.back().size));
    for (const auto& p : pts) {
      y0 = std::min({y0, p.speedup, p.lo});
      y1 = std::max({y1, p.speedup, p.hi});
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

  // Points only: a line would suggest values at the sizes in between, which were not measured.
  for (const auto& p : pts) {
    const char* color = p.change == Change::Improved ? "#1a7f37" : p.change == Change::Regressed ? "#cf222e" : "#57606a";
    if (p.hi > p.lo)
      out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\" "
                         "stroke-width=\"1.2\" opacity=\"0.6\"/>\n",
                         px(p.size), py(p.lo), py(p.hi), color);
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

namespace {

constexpr const char* kPalette[] = {"#0969da", "#bc4c00", "#8250df", "#1a7f37", "#cf222e", "#1b7c83",
                                    "#9a6700", "#bf3989", "#57606a", "#6639ba", "#0550ae", "#953800"};
constexpr const char* kMarkers[] = {"circle", "square", "diamond", "triangle"};

// A marker of `kind` centred on (x, y); `fill` "none" draws it hollow.
std::string marker(const char* kind, double x, double y, const char* color, bool filled, const std::string& tip) {
  const std::string paint = filled ? fmt::format("fill=\"{}\" stroke=\"{}\"", color, color)
                                   : fmt::format("fill=\"#fff\" stroke=\"{}\" stroke-width=\"1.3\"", color);
  const std::string title = fmt::format("<title>{}</title>", escape(tip));
  const std::string k = kind;
  if (k == "square")
    return fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"7\" height=\"7\" {}>{}</rect>\n", x - 3.5, y - 3.5, paint,
                       title);
  if (k == "diamond")
    return fmt::format("<polygon points=\"{0:.1f},{1:.1f} {2:.1f},{3:.1f} {0:.1f},{4:.1f} {5:.1f},{3:.1f}\" {6}>{7}</polygon>\n",
                       x, y - 4.5, x + 4.5, y, y + 4.5, x - 4.5, paint, title);
  if (k == "triangle")
    return fmt::format("<polygon points=\"{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\" {}>{}</polygon>\n", x, y - 4.5,
                       x + 4.2, y + 3.5, x - 4.2, y + 3.5, paint, title);
  return fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.6\" {}>{}</circle>\n", x, y, paint, title);
}

std::string latency_text(double us) {
  if (us >= 1000) return fmt::format("{:.0f}", us);
  if (us >= 10) return fmt::format("{:.0f}", us);
  if (us >= 1) return fmt::format("{:.1f}", us);
  return fmt::format("{:.2f}", us);
}

}  // namespace

std::string overview_chart_svg(const Comparison& c) {
  struct Point {
    size_t group;
    double size, speedup, lo, hi, before_us, after_us;
    std::string tip;
  };
  std::vector<Point> pts;
  std::vector<size_t> group_points(c.groups.size(), 0);
  for (size_t gi = 0; gi < c.groups.size(); ++gi) {
    const GroupSummary& g = c.groups[gi];
    for (const auto& s : c.shapes) {
      if (s.key.family != g.family || s.group != g.group || s.change == Change::NotMeasured) continue;
      std::string tip = fmt::format("{} {} {}={}: {} (p10..p90 {}..{}), {} -> {} us, {}", family_name(g.family),
                                    g.label, spec(g.family).size_column, s.size, format_speedup(s.speedup),
                                    format_speedup(s.speedup_lo), format_speedup(s.speedup_hi),
                                    latency_text(s.before_us), latency_text(s.after_us),
                                    s.change == Change::WithinNoise ? "within noise" : to_string(s.change));
      pts.push_back({gi, static_cast<double>(std::max(1L, s.size)), s.speedup, s.speedup_lo, s.speedup_hi,
                     s.before_us, s.after_us, std::move(tip)});
      ++group_points[gi];
    }
  }
  if (pts.empty()) return {};

  constexpr double W = 880, left = 64, right = 16, top = 28, panel = 230, gap = 46, bottom = 52;
  const double pw = W - left - right;
  // Legend: one line per group (colour, marker, label, geomean) under the plots.
  const double legend_top = top + 2 * panel + gap + bottom;
  const double H = legend_top + 16.0 * static_cast<double>(c.groups.size()) + 10;

  double x0 = 1e300, x1 = -1e300, s0 = 1, s1 = 1, l0 = 1e300, l1 = -1e300;
  for (const auto& p : pts) {
    x0 = std::min(x0, std::floor(std::log2(p.size)));
    x1 = std::max(x1, std::ceil(std::log2(p.size)));
    s0 = std::min({s0, p.speedup, p.lo});
    s1 = std::max({s1, p.speedup, p.hi});
    for (double us : {p.before_us, p.after_us})
      if (us > 0) {
        l0 = std::min(l0, std::floor(std::log10(us)));
        l1 = std::max(l1, std::ceil(std::log10(us)));
      }
  }
  if (x1 <= x0) {
    x0 -= 1;
    x1 += 1;
  }
  if (!(l1 > l0)) {
    l0 = std::isfinite(l0) && l0 < 1e300 ? l0 - 1 : 0;
    l1 = l0 + 2;
  }
  const double tick0 = x0, tick1 = x1;
  x0 -= 0.4;
  x1 += 0.4;
  // Decade ticks stay at l0..l1; the plotted range gets a little air so points are not on the frame.
  const double dec0 = l0, dec1 = l1;
  l0 -= 0.08 * (dec1 - dec0);
  l1 += 0.08 * (dec1 - dec0);
  const double pad = std::max(0.05, (s1 - s0) * 0.08);
  s0 = std::max(0.0, s0 - pad);
  s1 += pad;
  auto px = [&](double size) { return left + (std::log2(size) - x0) / (x1 - x0) * pw; };
  auto ps = [&](double v) { return top + (s1 - v) / (s1 - s0) * panel; };
  const double ltop = top + panel + gap;
  auto pl = [&](double us) { return ltop + (l1 - std::log10(us)) / (l1 - l0) * panel; };

  std::string size_name = c.families().size() == 1 ? std::string(spec(c.families()[0]).size_column) : "M / token";
  std::string out = fmt::format(
      "<svg width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\" aria-label=\"speedup and latency of "
      "every group against {2}\" font-family=\"sans-serif\" font-size=\"11\">\n",
      W, H, escape(size_name));
  out += fmt::format("<text x=\"8\" y=\"16\" font-size=\"13\" font-weight=\"600\">Speedup ({}) and latency, every "
                     "group</text>\n",
                     c.options.metric == Metric::Us ? "before/after time" : "after/before TFLOPS");
  // Frames, x grid at powers of two in both panels, size-class boundaries.
  int every = std::max(1, (static_cast<int>(tick1 - tick0) + 15) / 16);
  for (double ptop : {top, ltop}) {
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#fff\" stroke=\"#d0d7de\"/>\n", left,
                       ptop, pw, panel);
    for (int e = static_cast<int>(tick0); e <= static_cast<int>(tick1); e += every) {
      double v = std::exp2(e);
      out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#eaeef2\"/>\n",
                         px(v), ptop, ptop + panel);
      out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", px(v),
                         ptop + panel + 14, size_text(v));
    }
    for (double b : {64.0, 512.0}) {
      double lb = std::log2(b);
      if (lb <= x0 || lb >= x1) continue;
      out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#8c959f\" "
                         "stroke-dasharray=\"4 3\"/>\n",
                         px(b), ptop, ptop + panel);
    }
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{} (log2)</text>\n", left + pw / 2,
                       ptop + panel + 30, escape(size_name));
  }
  const std::pair<double, double> classes[] = {{0, 6}, {6, 9}, {9, 40}};  // log2 ranges of the size classes
  for (size_t i = 0; i < 3; ++i) {
    double lo = std::max(classes[i].first, x0), hi = std::min(classes[i].second, x1);
    if (hi - lo < 0.8) continue;
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" fill=\"#8c959f\">{}</text>\n",
                       (px(std::exp2(lo)) + px(std::exp2(hi))) / 2, top + 12, to_string(kAllSizeClasses[i]));
  }
  // Speedup panel: y grid, 1.0 line, bars and markers.
  double step = nice_step(s1 - s0, 6);
  for (double v = std::ceil(s0 / step) * step; v <= s1 + 1e-9; v += step) {
    out += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#eaeef2\"/>\n", left,
                       ps(v), left + pw, ps(v));
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{:.2f}x</text>\n", left - 4, ps(v) + 4, v);
  }
  out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{2:.1f}\" x2=\"{1:.1f}\" y2=\"{2:.1f}\" stroke=\"#57606a\" "
                     "stroke-width=\"1.5\"/>\n",
                     left, left + pw, ps(1.0));
  out += fmt::format("<text x=\"14\" y=\"{0:.1f}\" text-anchor=\"middle\" transform=\"rotate(-90 14 {0:.1f})\">"
                     "speedup</text>\n",
                     top + panel / 2);
  // Latency panel: decades.
  for (double e = dec0; e <= dec1 + 1e-9; e += 1) {
    double v = std::pow(10.0, e);
    out += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#eaeef2\"/>\n", left,
                       pl(v), left + pw, pl(v));
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", left - 4, pl(v) + 4,
                       latency_text(v));
  }
  out += fmt::format("<text x=\"14\" y=\"{0:.1f}\" text-anchor=\"middle\" transform=\"rotate(-90 14 {0:.1f})\">"
                     "median µs (log)</text>\n",
                     ltop + panel / 2);
  // Small horizontal offsets per group keep points of different groups at the same size apart.
  const double spread = std::min(3.0, 14.0 / static_cast<double>(std::max<size_t>(1, c.groups.size())));
  for (const auto& p : pts) {
    const char* color = kPalette[p.group % std::size(kPalette)];
    const char* kind = kMarkers[(p.group / std::size(kPalette)) % std::size(kMarkers)];
    double x = px(p.size) + (static_cast<double>(p.group) - static_cast<double>(c.groups.size() - 1) / 2) * spread;
    if (p.hi > p.lo)
      out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\" "
                         "stroke-width=\"1.2\" opacity=\"0.55\"/>\n",
                         x, ps(p.lo), ps(p.hi), color);
    out += marker(kind, x, ps(p.speedup), color, true, p.tip);
    if (p.before_us > 0) out += marker(kind, x, pl(p.before_us), color, false, p.tip + " (before)");
    if (p.after_us > 0) out += marker(kind, x, pl(p.after_us), color, true, p.tip + " (after)");
  }
  for (size_t gi = 0; gi < c.groups.size(); ++gi) {
    const GroupSummary& g = c.groups[gi];
    const char* color = kPalette[gi % std::size(kPalette)];
    const char* kind = kMarkers[(gi / std::size(kPalette)) % std::size(kMarkers)];
    double y = legend_top + 16.0 * static_cast<double>(gi);
    out += marker(kind, left + 6, y - 4, color, true, g.label);
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{} {}: {} shapes, geomean {}, {} improved, {} regressed, "
                       "{} within noise</text>\n",
                       left + 16, y, escape(family_name(g.family)), escape(g.label), g.all.count,
                       g.all.count ? format_speedup(g.all.geomean) : "n/a", g.all.improved, g.all.regressed,
                       g.all.within_noise);
  }
  out += "</svg>\n";
  return out;
}

}  // namespace cktune
