// Text and JSON renderings of a Comparison (the output of `cktune compare`).
#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cktune/compare/compare.hpp"

namespace cktune {

namespace {

// Columns padded to their widest cell; `right` marks right-aligned (numeric) columns.
std::string text_table(const std::vector<std::string>& head, const std::vector<bool>& right,
                       const std::vector<std::vector<std::string>>& rows, const std::string& indent) {
  std::vector<size_t> w(head.size());
  for (size_t c = 0; c < head.size(); ++c) {
    w[c] = head[c].size();
    for (const auto& r : rows) w[c] = std::max(w[c], r[c].size());
  }
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s = indent;
    for (size_t c = 0; c < cells.size(); ++c) {
      if (c) s += "  ";
      s += right[c] ? fmt::format("{:>{}}", cells[c], w[c]) : fmt::format("{:<{}}", cells[c], w[c]);
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out += s + '\n';
  };
  line(head);
  std::vector<std::string> rule;
  for (size_t c = 0; c < head.size(); ++c) rule.emplace_back(w[c], '-');
  line(rule);
  for (const auto& r : rows) line(r);
  return out;
}

std::string value_text(double v, Metric m) {
  if (std::isinf(v)) return "timeout";
  if (!(v > 0)) return "n/a";
  return m == Metric::Us ? fmt::format("{:.4f}", v) : fmt::format("{:.2f}", v);
}

std::vector<std::string> stats_cells(const SpeedupStats& s) {
  if (s.count == 0)
    return {"0", "-", "-", "-", "-", "0", "0", "0", std::to_string(s.not_measured)};
  return {std::to_string(s.count),     format_speedup(s.geomean),   format_speedup(s.mean),
          format_speedup(s.min),       format_speedup(s.max),       std::to_string(s.improved),
          std::to_string(s.regressed), std::to_string(s.within_noise), std::to_string(s.not_measured)};
}

const std::vector<std::string> kStatsHead = {"shapes", "geomean", "mean",      "min",         "max",
                                             "improved", "regressed", "within noise", "not measured"};

nlohmann::json json_number(double v) {
  if (!std::isfinite(v)) return nullptr;  // JSON has no inf/nan
  return v;
}

nlohmann::json json_positive(double v) { return v > 0 ? json_number(v) : nlohmann::json(nullptr); }

// "±1.2% / ±3.4%": half the p10..p90 width of each side relative to its median; "median only" without spread.
std::string noise_text(const ShapeComparison& s) {
  if (!s.spread_known) return s.change == Change::NotMeasured ? "" : "median only";
  return fmt::format("{:.1f}%/{:.1f}%", spread_pct(s.before_lo, s.before_hi, s.before),
                     spread_pct(s.after_lo, s.after_hi, s.after));
}

std::string change_text(Change c) { return c == Change::WithinNoise ? "within noise" : std::string(to_string(c)); }

nlohmann::json stats_json(const SpeedupStats& s) {
  nlohmann::json j;
  j["count"] = s.count;
  j["geomean"] = s.count ? json_number(s.geomean) : nlohmann::json(nullptr);
  j["mean"] = s.count ? json_number(s.mean) : nlohmann::json(nullptr);
  j["min"] = s.count ? json_number(s.min) : nlohmann::json(nullptr);
  j["max"] = s.count ? json_number(s.max) : nlohmann::json(nullptr);
  j["improved"] = s.improved;
  j["regressed"] = s.regressed;
  j["within_noise"] = s.within_noise;
  j["not_measured"] = s.not_measured;
  return j;
}

nlohmann::json classes_json(const std::array<SpeedupStats, 3>& by_class) {
  nlohmann::json j = nlohmann::json::object();
  for (SizeClass c : kAllSizeClasses) {
    nlohmann::json s = stats_json(by_class[static_cast<size_t>(c)]);
    s["range"] = size_class_range(c);
    j[std::string(to_string(c))] = std::move(s);
  }
  return j;
}

// Key cells as an object; integer cells as JSON numbers so `jq '.shapes[] | select(.key.M < 64)'` works.
nlohmann::json key_json(const ProblemKey& k) {
  nlohmann::json j = nlohmann::json::object();
  const auto& cols = spec(k.family).untuned;
  for (size_t i = 0; i < cols.size() && i < k.cells.size(); ++i) {
    const std::string& s = k.cells[i];
    long long v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && p == s.data() + s.size()) j[std::string(cols[i])] = v;
    else j[std::string(cols[i])] = s;
  }
  return j;
}

}  // namespace

std::string render_comparison_text(const Comparison& c) {
  const Metric m = c.options.metric;
  std::string out;
  out += fmt::format("before: {} ({})\n", c.before_info.path, c.before_info.format);
  out += fmt::format("after:  {} ({})\n", c.after_info.path, c.after_info.format);
  out += fmt::format("metric: {} (speedup = {}), rows: {}{}\n", to_string(m),
                     m == Metric::Us ? "before/after" : "after/before", to_string(c.options.role),
                     c.options.backend.empty() ? "" : fmt::format(" of backend {}", c.options.backend));
  out += fmt::format("rule: {}\n", noise_rule_text(c.options));
  out += fmt::format("runs: {}\n", runs_text(c));
  out += "noise column: p10..p90 width / median of before and after\n";

  const std::string unit = m == Metric::Us ? "us" : "TFLOPS";
  for (Family f : c.families()) {
    out += fmt::format("\n{}: per shape\n", family_name(f));
    std::vector<std::string> head;
    std::vector<bool> right;
    for (auto col : spec(f).untuned) {
      head.emplace_back(col);
      right.push_back(true);
    }
    for (std::string_view h : {"class", "before", "after", "speedup", "noise", "change", "kernel (after)", "note"})
      head.emplace_back(h);
    for (bool r : {false, true, true, true, true, false, false, false}) right.push_back(r);
    head[head.size() - 7] = "before " + unit;
    head[head.size() - 6] = "after " + unit;
    std::vector<std::vector<std::string>> rows;
    for (const auto& s : c.shapes) {
      if (s.key.family != f) continue;
      std::vector<std::string> r = s.key.cells;
      r.emplace_back(to_string(s.size_class));
      r.push_back(value_text(s.before, m));
      r.push_back(value_text(s.after, m));
      r.push_back(format_speedup(s.speedup));
      r.push_back(noise_text(s));
      r.push_back(s.change == Change::NotMeasured ? "" : change_text(s.change));
      r.push_back(s.after_kernel.empty() ? "-" : s.after_kernel);
      r.push_back(s.note);
      rows.push_back(std::move(r));
    }
    out += text_table(head, right, rows, "  ");
  }

  out += "\nsummary\n";
  {
    std::vector<std::string> head = {"scope", "range"};
    head.insert(head.end(), kStatsHead.begin(), kStatsHead.end());
    std::vector<bool> right(head.size(), true);
    right[0] = right[1] = false;
    std::vector<std::vector<std::string>> rows;
    auto add = [&](std::string scope, std::string range, const SpeedupStats& s) {
      std::vector<std::string> r = {std::move(scope), std::move(range)};
      auto cells = stats_cells(s);
      r.insert(r.end(), cells.begin(), cells.end());
      rows.push_back(std::move(r));
    };
    add("all", "", c.overall);
    for (SizeClass k : kAllSizeClasses)
      add(std::string(to_string(k)), std::string(size_class_range(k)), c.by_class[static_cast<size_t>(k)]);
    out += text_table(head, right, rows, "  ");
  }

  out += "\nper group and size class\n";
  {
    std::vector<std::string> head = {"family", "group", "class"};
    head.insert(head.end(), kStatsHead.begin(), kStatsHead.end());
    std::vector<bool> right(head.size(), true);
    right[0] = right[1] = right[2] = false;
    std::vector<std::vector<std::string>> rows;
    for (const auto& g : c.groups) {
      auto add = [&](std::string cls, const SpeedupStats& s) {
        std::vector<std::string> r = {std::string(family_name(g.family)), g.label, std::move(cls)};
        auto cells = stats_cells(s);
        r.insert(r.end(), cells.begin(), cells.end());
        rows.push_back(std::move(r));
      };
      for (SizeClass k : kAllSizeClasses)
        if (const auto& s = g.by_class[static_cast<size_t>(k)]; s.count + s.not_measured > 0)
          add(std::string(to_string(k)), s);
      add("all", g.all);
    }
    out += text_table(head, right, rows, "  ");
  }

  if (!c.models.empty()) {
    out += "\nper model (shapes whose N,K or MoE configuration is a layer of the preset at that TP)\n";
    std::vector<std::string> head = {"model", "TP", "family"};
    head.insert(head.end(), kStatsHead.begin(), kStatsHead.end());
    std::vector<bool> right(head.size(), true);
    right[0] = right[2] = false;
    std::vector<std::vector<std::string>> rows;
    for (const auto& model : c.models) {
      std::vector<std::string> r = {model.model, std::to_string(model.tp), std::string(family_name(model.family))};
      auto cells = stats_cells(model.stats);
      r.insert(r.end(), cells.begin(), cells.end());
      rows.push_back(std::move(r));
    }
    out += text_table(head, right, rows, "  ");
  }

  auto unmatched = [&](const std::vector<ProblemKey>& keys, const std::string& where) {
    if (keys.empty()) return;
    out += fmt::format("\n{} shape(s) only in {}:\n", keys.size(), where);
    for (const auto& k : keys) out += fmt::format("  {} {}\n", family_name(k.family), k.to_string());
  };
  unmatched(c.only_before, fmt::format("before ({})", c.before_info.path));
  unmatched(c.only_after, fmt::format("after ({})", c.after_info.path));
  if (!c.warnings.empty()) {
    out += "\nwarnings:\n";
    for (const auto& w : c.warnings) out += fmt::format("  {}\n", w);
  }
  return out;
}

std::string render_comparison_csv(const Comparison& c) {
  // One line per shape; key columns differ per family, so they go in one "key" cell ("M=1;N=4096;K=7168").
  std::string out = "family,group,size,size_class,before,before_p10,before_p90,after,after_p10,after_p90,speedup,"
                    "speedup_low,speedup_high,change,key,after_kernel,note\n";
  auto num = [](double v) { return v > 0 && std::isfinite(v) ? fmt::format("{:.6g}", v) : std::string(); };
  auto clean = [](std::string t) {
    for (char& ch : t)
      if (ch == ',' || ch == '\n' || ch == '"') ch = ';';
    return t;
  };
  for (const auto& s : c.shapes) {
    std::string key;
    const auto& cols = spec(s.key.family).untuned;
    for (size_t i = 0; i < cols.size() && i < s.key.cells.size(); ++i)
      key += fmt::format("{}{}={}", i ? ";" : "", cols[i], s.key.cells[i]);
    const bool ok = s.change != Change::NotMeasured;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", family_name(s.key.family),
                       clean(s.group), s.size, to_string(s.size_class), num(s.before), num(s.before_lo),
                       num(s.before_hi), num(s.after), num(s.after_lo), num(s.after_hi), ok ? num(s.speedup) : "",
                       ok ? num(s.speedup_lo) : "", ok ? num(s.speedup_hi) : "", to_string(s.change), clean(key),
                       clean(s.after_kernel), clean(s.note));
  }
  return out;
}

nlohmann::json comparison_json(const Comparison& c) {
  nlohmann::json j;
  j["before"] = {{"path", c.before_info.path}, {"format", c.before_info.format}};
  j["after"] = {{"path", c.after_info.path}, {"format", c.after_info.format}};
  j["metric"] = to_string(c.options.metric);
  j["speedup"] = c.options.metric == Metric::Us ? "before/after" : "after/before";
  j["threshold_pct"] = c.options.threshold_pct;
  j["rule"] = noise_rule_text(c.options);
  j["separate_runs"] = c.separate_runs;
  const auto& d = c.baseline_drift;
  j["baseline_drift"] = {{"count", d.count},     {"moved", d.moved},
                         {"changed", d.changed}, {"explained", d.explained},
                         {"geomean", d.count ? json_number(d.geomean) : nlohmann::json(nullptr)},
                         {"min", d.count ? json_number(d.min) : nlohmann::json(nullptr)},
                         {"max", d.count ? json_number(d.max) : nlohmann::json(nullptr)}};
  j["runs"] = runs_text(c);
  j["role"] = to_string(c.options.role);
  j["backend"] = c.options.backend;
  j["summary"] = stats_json(c.overall);
  j["by_class"] = classes_json(c.by_class);
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& g : c.groups) {
    groups.push_back({{"family", family_name(g.family)},
                      {"group", g.group},
                      {"label", g.label},
                      {"all", stats_json(g.all)},
                      {"by_class", classes_json(g.by_class)}});
  }
  j["groups"] = std::move(groups);
  nlohmann::json models = nlohmann::json::array();
  for (const auto& m : c.models)
    models.push_back({{"model", m.model}, {"tp", m.tp}, {"family", family_name(m.family)}, {"stats", stats_json(m.stats)}});
  j["models"] = std::move(models);
  nlohmann::json shapes = nlohmann::json::array();
  for (const auto& s : c.shapes) {
    shapes.push_back({{"family", family_name(s.key.family)},
                      {"key", key_json(s.key)},
                      {"group", s.group},
                      {"size", s.size},
                      {"size_class", to_string(s.size_class)},
                      {"before", json_number(s.before)},
                      {"after", json_number(s.after)},
                      {"before_p10", json_positive(s.before_lo)},
                      {"before_p90", json_positive(s.before_hi)},
                      {"after_p10", json_positive(s.after_lo)},
                      {"after_p90", json_positive(s.after_hi)},
                      {"spread_known", s.spread_known},
                      {"speedup", s.change == Change::NotMeasured ? nlohmann::json(nullptr) : json_number(s.speedup)},
                      {"speedup_low", s.change == Change::NotMeasured ? nlohmann::json(nullptr) : json_number(s.speedup_lo)},
                      {"speedup_high", s.change == Change::NotMeasured ? nlohmann::json(nullptr) : json_number(s.speedup_hi)},
                      {"change", to_string(s.change)},
                      {"before_kernel", s.before_kernel},
                      {"after_kernel", s.after_kernel},
                      {"before_backend", s.before_backend},
                      {"after_backend", s.after_backend},
                      {"baseline_speedup", s.baseline_speedup > 0 ? json_number(s.baseline_speedup) : nlohmann::json(nullptr)},
                      {"note", s.note}});
  }
  j["shapes"] = std::move(shapes);
  auto keys = [](const std::vector<ProblemKey>& ks) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& k : ks) a.push_back({{"family", family_name(k.family)}, {"key", key_json(k)}});
    return a;
  };
  j["unmatched"] = {{"only_before", keys(c.only_before)}, {"only_after", keys(c.only_after)}};
  j["warnings"] = c.warnings;
  return j;
}

}  // namespace cktune
