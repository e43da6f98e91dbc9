// build_report: read the inputs, compare, and lay the report out as neutral blocks (rendered by
// markdown.cpp and html.cpp).
#include "cktune/report/report.hpp"

#include <algorithm>
#include <bit>
#include <map>
#include <tuple>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cktune/core/error.hpp"
#include "cktune/core/io.hpp"
#include "cktune/core/log.hpp"
#include "cktune/formats/csv.hpp"
#include "cktune/formats/table.hpp"
#include "cktune/formats/tuned_table.hpp"

namespace cktune {

namespace {

namespace fs = std::filesystem;

std::string absolute(const std::string& path) {
  if (path.empty() || path == "-") return path;
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  return ec ? path : p.lexically_normal().string();
}

// Distinct non-empty values in first-seen order.
template <typename Get>
std::vector<std::string> distinct(const std::vector<ResultRow>& rows, Get get) {
  std::vector<std::string> out;
  for (const auto& r : rows) {
    std::string v = get(r);
    if (!v.empty() && std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return out;
}

std::string joined(const std::vector<std::string>& v) { return v.empty() ? "-" : fmt::format("{}", fmt::join(v, ", ")); }

std::string time_range(const std::vector<ResultRow>& rows) {
  std::vector<std::string> ts = distinct(rows, [](const ResultRow& r) { return r.timestamp; });
  if (ts.empty()) return "-";
  auto [lo, hi] = std::minmax_element(ts.begin(), ts.end());  // ISO 8601 sorts as text
  return *lo == *hi ? *lo : fmt::format("{} .. {}", *lo, *hi);
}

std::string role_counts(const std::vector<ResultRow>& rows) {
  size_t n[4] = {0, 0, 0, 0};
  for (const auto& r : rows) ++n[static_cast<size_t>(r.role)];
  std::string out = fmt::format("{} (dispatch {}, baseline {}, candidate {}", rows.size(), n[0], n[1], n[2]);
  if (n[3]) out += fmt::format(", against {}", n[3]);
  return out + ")";
}

std::string machine_of(const ResultRow& r) {
  if (r.gfx.empty() && r.cu_num == 0) return {};
  return fmt::format("{} / {}", r.gfx.empty() ? "?" : r.gfx, r.cu_num);
}

// The provenance JSON next to the tuned table: "<tuned>.provenance.json", else "<tuned without .csv>.provenance.json".
std::string find_provenance(const ReportOptions& o) {
  if (!o.provenance.empty()) return o.provenance;
  if (o.tuned.empty()) return {};
  std::string a = o.tuned + ".provenance.json";
  if (file_exists(a)) return a;
  fs::path p(o.tuned);
  std::string b = (p.parent_path() / (p.stem().string() + ".provenance.json")).string();
  if (file_exists(b)) return b;
  return {};
}

nlohmann::json read_json(const std::string& path) {
  std::string text = read_input(path);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path, 0, 0, fmt::format("not valid JSON: {}", e.what()), "pass the provenance JSON cktune wrote");
  }
}

std::string json_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

// Every value whose key looks like an error-ratio limit ("errRatio", "err_ratio", "err_ratio_limit"),
// with its path, so the report shows the threshold the tuner used whatever the sidecar calls it.
void find_err_ratio(const nlohmann::json& j, const std::string& path, std::vector<std::string>& out) {
  if (!j.is_object()) return;
  for (auto it = j.begin(); it != j.end(); ++it) {
    std::string key = it.key(), lower;
    for (char c : key) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string full = path.empty() ? key : path + "." + key;
    lower.erase(std::remove(lower.begin(), lower.end(), '_'), lower.end());
    if (lower.find("errratio") != std::string::npos && it.value().is_primitive())
      out.push_back(fmt::format("{} = {}", full, json_text(it.value())));
    find_err_ratio(it.value(), full, out);
  }
}

// The machine each row of tuned table `t` is for, from the table reader's checked keys (make_table: gfx without its
// ":feature" suffix, cu_num a compute-unit count, a legacy table's gfx inferred from cu_num; every key cell checked
// as merge checks it). Unknown where the table records neither.
std::vector<MachineId> row_machines(const CsvTable& t, Family family) {
  const Table typed = make_table(t, family);
  std::vector<MachineId> out(t.rows.size());
  for (size_t r = 0; r < typed.keys.size() && r < out.size(); ++r)
    out[r] = {typed.keys[r].gfx, typed.keys[r].cu_num > 0 ? static_cast<long>(typed.keys[r].cu_num) : 0};
  return out;
}

TunedTableInfo read_tuned(const std::string& path, const Comparison& c) {
  CsvTable t = read_csv(path);
  TunedTableInfo info;
  info.path = absolute(path);
  std::optional<Family> family = family_from_file_name(path);
  if (!family) {
    auto fams = c.families();
    if (fams.size() == 1) family = fams.front();
  }
  if (!family)
    throw Error(fmt::format("{}: cannot tell which family this tuned table is for", path),
                "name it after AITER's file (e.g. a8w8_blockscale_tuned_gemm.csv) or compare one family only");
  info.family = *family;
  info.rows = t.rows.size();
  const auto& s = spec(*family);
  std::vector<size_t> key_idx;
  for (auto col : s.untuned) {
    auto i = t.column(col);
    if (!i)
      throw InputError(path, t.header_line, 1,
                       fmt::format("tuned table of family {} has no key column '{}'", family_name(*family), col),
                       "pass the tuned CSV that the after run used");
    key_idx.push_back(*i);
  }
  auto gfx = t.column("gfx"), cu = t.column("cu_num"), kname = t.column("kernelName");
  const std::vector<MachineId> row_machine = row_machines(t, *family);
  if (!kname) kname = t.column("kernelName1");
  const auto us_col = s.is_moe ? std::nullopt : t.column("us");
  std::set<std::string> machines, kernels, groups_seen;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    const auto& row = t.rows[r];
    machines.insert(fmt::format("{} / {}", gfx ? row[*gfx] : "?", cu ? row[*cu] : "?"));
    if (kname) kernels.insert(row[*kname]);
    ProblemKey key{*family, {}};
    for (size_t i = 0; i < key_idx.size(); ++i) key.cells.push_back(canonical_cell(s.untuned[i], row[key_idx[i]]));
    std::string label = group_label(key);
    if (groups_seen.insert(label).second) info.groups.push_back(label);
    if (us_col && kname) {
      double us = -1;
      try {
        us = std::stod(row[*us_col]);
      } catch (const std::exception&) {
      }
      info.timed[key.to_string()].push_back({row_machine[r], row[*kname], us});
    } else if (s.is_moe && kname) {
      // The pipeline as bench names it; its time comes from tune's profile (moe_times_from_profile).
      info.timed[key.to_string()].push_back({row_machine[r], tuned_row_kernel(*family, t, row), -1.0});
    }
    try {
      ++info.by_class[static_cast<size_t>(size_class(key.size()))];
    } catch (const Error& e) {
      throw InputError(path, t.line_of(r), 0, e.what());
    }
  }
  info.machines.assign(machines.begin(), machines.end());
  info.kernels = kernels.size();
  return info;
}

// Fused MoE: each row's pipeline time as tune measured it, from its profile (-o2): the candidate row of the same key
// and pipeline that passed and was fully timed (a screened-out row holds a screen time only).
void moe_times_from_profile(TunedTableInfo& info, const std::string& path) {
  const ResultsFile p = read_results(path);
  if (p.family != info.family)
    throw InputError(path, 0, 0,
                     fmt::format("the profile is of family {}, the tuned table of {}", family_name(p.family),
                                 family_name(info.family)),
                     "pass the -o2 file of the tune that wrote the table");
  info.profile += (info.profile.empty() ? "" : ", ") + absolute(path);
  for (const auto& row : p.rows) {
    if (row.role != ResultRole::Candidate || row.verdict != Verdict::Passed || !row.measured() ||
        row.reason.starts_with("screened out"))
      continue;
    auto it = info.timed.find(row.key.to_string());
    if (it == info.timed.end()) continue;
    for (TunedTime& t : it->second)
      if (t.kernel == row.kernel_name && t.machine.matches(MachineId{row.gfx, row.cu_num})) t.us = row.us;
  }
}

// The profiles for a fused-MoE table: --profile (repeatable), else those the provenance names that are still there:
// "profile" as tune writes it, "profiles" as merge writes it for a table merged from several tunes.
std::vector<std::string> find_profiles(const ReportOptions& o, const nlohmann::json& provenance) {
  if (!o.profiles.empty()) return o.profiles;
  std::vector<std::string> found;
  auto take = [&](const nlohmann::json& v) {
    if (v.is_string() && file_exists(v.get<std::string>()) &&
        std::find(found.begin(), found.end(), v.get<std::string>()) == found.end())
      found.push_back(v.get<std::string>());
  };
  if (provenance.is_object()) {
    if (auto it = provenance.find("profile"); it != provenance.end()) take(*it);
    if (auto it = provenance.find("profiles"); it != provenance.end() && it->is_array())
      for (const auto& v : *it) take(v);
  }
  return found;
}

std::string stat(double v, size_t count) { return count ? format_speedup(v) : "-"; }

}  // namespace

const TunedTime* TunedTableInfo::row_for(const std::string& key, const MachineId& m) const {
  auto it = timed.find(key);
  if (it == timed.end()) return nullptr;
  for (const TunedTime& t : it->second)
    if (t.machine.matches(m)) return &t;
  return nullptr;
}

TuneBenchAgreement tune_bench_agreement(const Comparison& c, const TunedTableInfo& tuned, const Comparison* vs_vendor) {
  TuneBenchAgreement a;
  std::set<std::string> slower_than_vendor;
  if (vs_vendor != nullptr)
    for (const auto& sc : vs_vendor->shapes)
      if (sc.change == Change::Regressed) slower_than_vendor.insert(sc.key.to_string());
  struct Off {
    double ratio;
    std::string text;
  };
  std::vector<Off> off;
  double log_sum = 0;
  for (const auto& sc : c.shapes) {
    const TunedTime* row = tuned.row_for(sc.key.to_string(), MachineId{sc.after_gfx, sc.after_cu_num});
    if (row == nullptr) {
      ++a.no_row;
      if (sc.change == Change::Regressed) ++a.no_row_regressed;
      if (slower_than_vendor.count(sc.key.to_string())) ++a.no_row_vendor_slower;
      continue;
    }
    const std::string& kernel = row->kernel;
    const double tune_us = row->us;
    if (sc.after_kernel != kernel) {
      ++a.other_kernel;
      continue;
    }
    if (!(tune_us > 0) || !(sc.after_us > 0) || !std::isfinite(sc.after_us)) continue;
    const double ratio = sc.after_us / tune_us;
    if (a.compared == 0) a.min = a.max = ratio;
    a.min = std::min(a.min, ratio);
    a.max = std::max(a.max, ratio);
    log_sum += std::log(ratio);
    ++a.compared;
    if (std::abs(ratio - 1.0) <= TuneBenchAgreement::kTolerance) {
      ++a.within;
    } else {
      off.push_back({ratio, fmt::format("{} {}: tune {:.2f} us, bench {:.2f} us ({:.2f}x)", sc.key.to_string(), kernel,
                                        tune_us, sc.after_us, ratio)});
    }
  }
  if (a.compared) a.geomean = std::exp(log_sum / static_cast<double>(a.compared));
  std::sort(off.begin(), off.end(),
            [](const Off& x, const Off& y) { return std::abs(std::log(x.ratio)) > std::abs(std::log(y.ratio)); });
  for (size_t i = 0; i < off.size() && i < 10; ++i) a.outside.push_back(off[i].text);
  if (off.size() > 10) a.outside.push_back(fmt::format("... and {} more", off.size() - 10));
  return a;
}

const FloorShape* HardwareFloors::find(const ProblemKey& key) const {
  auto it = index.find(key);
  return it == index.end() ? nullptr : &shapes[it->second];
}

HardwareFloors hardware_floors(const Comparison& c, const Comparison* vs_vendor, const std::vector<std::string>& devices,
                               const ReportOptions& o) {
  HardwareFloors f;
  const bool given_rate = o.peak_tflops > 0, given_bw = o.peak_tbps > 0;
  if (devices.size() == 1) {
    f.device = devices[0];
    f.peaks = datasheet_peaks(f.device);
  }
  if (f.peaks && (given_rate || given_bw)) {
    f.peaks->source = fmt::format("datasheet, {} from the command line",
                                  given_rate && given_bw ? "both peaks" : given_rate ? "the tensor rate" : "the bandwidth");
  } else if (!f.peaks && given_rate && given_bw) {
    f.peaks = DevicePeaks{};
    f.peaks->model = "given";
    f.peaks->source = "command line";
  }
  if (f.peaks) {
    if (given_rate) f.peaks->fp8_tflops = f.peaks->int8_tops = f.peaks->bf16_tflops = f.peaks->fp4_tflops = o.peak_tflops;
    if (given_bw) f.peaks->memory_tbps = o.peak_tbps;
  } else {
    const std::string whose = devices.empty()      ? std::string("the after run's rows name no device")
                              : devices.size() > 1 ? fmt::format("the after run measured on several devices ({})",
                                                                 fmt::join(devices, ", "))
                                                   : fmt::format("no datasheet peaks are known for {}", devices[0]);
    f.missing = fmt::format("Not shown: {}. Give both --peak-tflops (the tensor rate of the shapes' math type) and "
                            "--peak-tbps (memory bandwidth); datasheet peaks are built in for: {}.",
                            whose, datasheet_models());
    return f;
  }
  std::map<ProblemKey, double> vendor;
  if (vs_vendor != nullptr)
    for (const auto& v : vs_vendor->shapes)
      if (v.before_us > 0 && std::isfinite(v.before_us)) vendor[v.key] = v.before_us;
  for (const auto& s : c.shapes) {
    if (!(s.after_us > 0) || !std::isfinite(s.after_us)) continue;
    FloorShape x;
    x.key = s.key;
    x.size_class = s.size_class;
    x.math = s.key.math_type();
    x.bytes = s.key.min_bytes_or(s.after_bytes);
    x.floor = hardware_floor(s.key.flops(), x.bytes, x.math, *f.peaks);
    x.after_us = s.after_us;
    if (auto it = vendor.find(s.key); it != vendor.end()) x.vendor_us = it->second;
    if (!(x.floor.us() > 0)) continue;
    f.index.emplace(x.key, f.shapes.size());
    f.shapes.push_back(std::move(x));
  }
  return f;
}

namespace {

std::vector<std::string> stats_row(std::vector<std::string> lead, const SpeedupStats& s) {
  lead.insert(lead.end(), {std::to_string(s.count), stat(s.geomean, s.count), stat(s.mean, s.count),
                           stat(s.min, s.count), stat(s.max, s.count), std::to_string(s.improved),
                           std::to_string(s.regressed), std::to_string(s.within_noise), std::to_string(s.not_measured)});
  return lead;
}

const std::vector<std::string> kStatsHead = {"shapes", "geomean", "mean",      "min",         "max",
                                             "improved", "regressed", "within noise", "not measured"};

// Times to about four significant digits (12.34, 123.4, 1234), TFLOPS to two decimals.
std::string value_text(double v, Metric m) {
  if (std::isinf(v)) return "timeout";
  if (!(v > 0)) return "n/a";
  if (m == Metric::Tflops) return fmt::format("{:.2f}", v);
  return v < 10 ? fmt::format("{:.3f}", v) : v < 100 ? fmt::format("{:.2f}", v) : fmt::format("{:.1f}", v);
}

std::string range_text(double lo, double hi, Metric m) {
  if (!(lo > 0) || !(hi > 0)) return "-";
  return fmt::format("{}–{}", value_text(lo, m), value_text(hi, m));
}

std::string change_text(Change c) { return c == Change::WithinNoise ? "within noise" : std::string(to_string(c)); }

std::string key_text(const ProblemKey& k) { return k.to_string(); }

class Layout {
 public:
  explicit Layout(std::vector<ReportBlock>& b) : b_(b) {}
  void heading(std::string text, int level = 2) {
    ReportBlock x;
    x.kind = ReportBlock::Kind::Heading;
    x.level = level;
    x.text = std::move(text);
    b_.push_back(std::move(x));
  }
  void para(std::string text) {
    ReportBlock x;
    x.kind = ReportBlock::Kind::Paragraph;
    x.text = std::move(text);
    b_.push_back(std::move(x));
  }
  void bullets(std::vector<std::string> items) {
    ReportBlock x;
    x.kind = ReportBlock::Kind::Bullets;
    x.items = std::move(items);
    b_.push_back(std::move(x));
  }
  void code(std::string text) {
    ReportBlock x;
    x.kind = ReportBlock::Kind::Code;
    x.text = std::move(text);
    b_.push_back(std::move(x));
  }
  void table(std::vector<std::string> head, std::vector<bool> right, std::vector<std::vector<std::string>> rows) {
    ReportBlock x;
    x.kind = ReportBlock::Kind::Table;
    x.head = std::move(head);
    x.right = std::move(right);
    x.rows = std::move(rows);
    b_.push_back(std::move(x));
  }
  void chart(size_t group) {
    ReportBlock x;
    x.kind = ReportBlock::Kind::Chart;
    x.group = group;
    b_.push_back(std::move(x));
  }

 private:
  std::vector<ReportBlock>& b_;
};

void environment_section(Layout& L, const CompareInput& before, const CompareInput& after, const Report& r) {
  L.heading("Environment");
  auto col = [](const CompareInput& in, auto get) { return joined(distinct(in.rows, get)); };
  std::vector<std::vector<std::string>> rows = {
      {"file", absolute(before.path), absolute(after.path)},
      {"format", before.format, after.format},
      {"device", col(before, [](const ResultRow& x) { return x.device; }),
       col(after, [](const ResultRow& x) { return x.device; })},
      {"gfx / cu_num", col(before, machine_of), col(after, machine_of)},
      {"board (UUID)", col(before, [](const ResultRow& x) { return x.uuid; }),
       col(after, [](const ResultRow& x) { return x.uuid; })},
      {"cktune version", col(before, [](const ResultRow& x) { return x.version; }),
       col(after, [](const ResultRow& x) { return x.version; })},
      {"measured", time_range(before.rows), time_range(after.rows)},
      {"rows", role_counts(before.rows), role_counts(after.rows)},
      {"backends", col(before, [](const ResultRow& x) { return x.backend; }),
       col(after, [](const ResultRow& x) { return x.backend; })},
  };
  L.table({"", "before", "after"}, {false, false, false}, std::move(rows));
  if (r.provenance.is_object()) {
    L.para(fmt::format("Provenance of the tuned table ({}):", r.provenance_path));
    std::vector<std::vector<std::string>> prov;
    for (auto it = r.provenance.begin(); it != r.provenance.end(); ++it) prov.push_back({it.key(), json_text(it.value())});
    L.table({"field", "value"}, {false, false}, std::move(prov));
  } else if (!r.provenance.is_null()) {
    L.para(fmt::format("Provenance ({}): {}", r.provenance_path, json_text(r.provenance)));
  } else {
    L.para("No provenance JSON was given or found next to the tuned table (driver and runtime versions are "
           "recorded there).");
  }
}

void shapes_section(Layout& L, const Report& r) {
  L.heading("Shapes tuned");
  const Comparison& c = r.comparison;
  std::vector<std::string> items;
  if (r.tuned) {
    const TunedTableInfo& t = *r.tuned;
    items = std::vector<std::string>({fmt::format("tuned table: {} ({} rows, family {})", t.path, t.rows, family_name(t.family)),
               fmt::format("machines (gfx / cu_num): {}", joined(t.machines)),
               fmt::format("{} group(s): {}", t.groups.size(), joined(t.groups)),
               fmt::format("rows by size class: decode {}, medium {}, prefill {}", t.by_class[0], t.by_class[1],
                           t.by_class[2]),
               fmt::format("distinct kernels chosen: {}", t.kernels)});
  }
  std::vector<std::string> fams;
  for (Family f : c.families()) fams.emplace_back(family_name(f));
  std::vector<std::string> groups;
  for (const auto& g : c.groups) groups.push_back(fmt::format("{} {}", family_name(g.family), g.label));
  items.push_back(fmt::format("compared shapes: {} (families: {})", c.shapes.size(), joined(fams)));
  items.push_back(fmt::format("compared group(s): {}", joined(groups)));
  items.push_back(fmt::format("only before: {}, only after: {}", c.only_before.size(), c.only_after.size()));
  L.bullets(std::move(items));
}

void agreement_section(Layout& L, const Report& r) {
  if (!r.agreement) return;
  const TuneBenchAgreement& a = *r.agreement;
  L.heading("Tune and bench agree");
  const int pct = static_cast<int>(TuneBenchAgreement::kTolerance * 100 + 0.5);
  std::string no_row;
  if (a.no_row)
    no_row = fmt::format(
        "{} compared shape(s) have no row of their own in the tuned table for the gfx / cu_num the after run measured "
        "on: the runtime serves them from the row of a padded M, picked for another size, or runs the default; {} of "
        "them regressed against the before{}. Tune those M values on this machine for rows of their own.",
        a.no_row, a.no_row_regressed,
        r.vs_vendor ? fmt::format(" and {} are slower than the vendor library", a.no_row_vendor_slower) : "");
  if (a.needs_profile) {
    if (!no_row.empty()) L.para(no_row);
    L.para("Fused MoE: tune's time of a pipeline (sorting, stage 1 and stage 2 timed as one) is in its profile, not in "
           "the table, whose `us` is us1 + us2 as AITER writes it. Pass the tune's -o2 file with --profile (tune names "
           "it in the provenance, where the report also looks) to compare bench with tune.");
    return;
  }
  if (a.compared == 0) {
    if (!no_row.empty()) L.para(no_row);
    L.para(fmt::format("No compared shape has a row of its own that the after run ran with a time on both sides{}, "
                       "so tune's times could not be checked against this run.",
                       a.other_kernel ? fmt::format(" ({} ran another kernel than their row names)", a.other_kernel)
                                      : ""));
    return;
  }
  std::vector<std::string> items;
  items.push_back(fmt::format("{} of {} shapes within {}% of the time tune {} (bench/tune geometric mean {:.3f}, "
                              "min {:.3f}, max {:.3f}): the after run ran the kernel its row names",
                              a.within, a.compared, pct,
                              r.tuned && !r.tuned->profile.empty() ? "measured (its profile)" : "wrote", a.geomean,
                              a.min, a.max));
  if (a.other_kernel)
    items.push_back(fmt::format("{} shape(s) ran another kernel than their row names (another table or the "
                                "default): not compared",
                                a.other_kernel));
  for (const auto& o : a.outside) items.push_back("outside " + std::to_string(pct) + "%: " + o);
  if (!no_row.empty()) items.push_back(no_row);
  L.bullets(std::move(items));
  if (a.within < a.compared)
    L.para("A time outside the tolerance is a winner that did not hold up, or a machine that changed between tune "
           "and bench (clocks, power, other jobs): bench it again before trusting that row.");
}

void settings_section(Layout& L, const CompareInput& before, const CompareInput& after, const Report& r) {
  L.heading("Tuning and measurement settings");
  std::vector<std::string> items;
  for (const auto& p : distinct(before.rows, [](const ResultRow& x) { return x.protocol; }))
    items.push_back(fmt::format("protocol (before): `{}`", p));
  for (const auto& p : distinct(after.rows, [](const ResultRow& x) { return x.protocol; }))
    items.push_back(fmt::format("protocol (after): `{}`", p));
  const bool any_protocol = !items.empty();
  std::vector<std::string> seeds = distinct(after.rows, [](const ResultRow& x) {
    return x.protocol.empty() && x.version.empty() ? std::string() : std::to_string(x.seed);
  });
  if (!seeds.empty()) items.push_back(fmt::format("seed: {}", joined(seeds)));
  std::vector<std::string> err;
  if (!r.provenance.is_null()) find_err_ratio(r.provenance, "", err);
  for (const auto& e : err) items.push_back(fmt::format("error-ratio limit: {}", e));
  const CompareOptions& o = r.comparison.options;
  items.push_back(fmt::format("compared: {} rows{}, metric {} (speedup = {})", to_string(o.role),
                              o.backend.empty() ? "" : fmt::format(" of backend {}", o.backend), to_string(o.metric),
                              o.metric == Metric::Us ? "before/after" : "after/before"));
  items.push_back(fmt::format("noise rule: {}", noise_rule_text(o)));
  items.push_back(fmt::format("runs: {}", runs_text(r.comparison)));
  if (!any_protocol) items.insert(items.begin(), "no protocol recorded in the inputs (AITER op-test output)");
  L.bullets(std::move(items));
}

// The statistics for all shapes and per size class.
void class_table(Layout& L, const Comparison& c) {
  std::vector<std::string> head = {"scope", "range"};
  head.insert(head.end(), kStatsHead.begin(), kStatsHead.end());
  std::vector<bool> right(head.size(), true);
  right[0] = right[1] = false;
  std::vector<std::vector<std::string>> rows;
  rows.push_back(stats_row({"all", ""}, c.overall));
  for (SizeClass k : kAllSizeClasses)
    rows.push_back(stats_row({std::string(to_string(k)), std::string(size_class_range(k))},
                             c.by_class[static_cast<size_t>(k)]));
  L.table(head, right, std::move(rows));
}

// The statistics per model preset and TP (compare --models); nothing without models.
void models_table(Layout& L, const Comparison& c) {
  if (c.models.empty()) return;
  L.heading("Per model", 3);
  L.para("Shapes whose N,K (fused MoE: model_dim, inter_dim, expert, topk) is a layer of the model preset at that "
         "tensor-parallel degree, any M or token; a shape several models share counts for each.");
  std::vector<std::string> mhead = {"model", "TP", "family"};
  mhead.insert(mhead.end(), kStatsHead.begin(), kStatsHead.end());
  std::vector<bool> mright(mhead.size(), true);
  mright[0] = mright[2] = false;
  std::vector<std::vector<std::string>> mrows;
  for (const auto& m : c.models)
    mrows.push_back(stats_row({m.model, std::to_string(m.tp), std::string(family_name(m.family))}, m.stats));
  L.table(mhead, mright, std::move(mrows));
}

void summary_section(Layout& L, const Comparison& c) {
  L.heading("Summary");
  class_table(L, c);

  L.heading("Per group and size class", 3);
  std::vector<std::string> ghead = {"family", "group", "class"};
  ghead.insert(ghead.end(), kStatsHead.begin(), kStatsHead.end());
  std::vector<bool> gright(ghead.size(), true);
  gright[0] = gright[1] = gright[2] = false;
  std::vector<std::vector<std::string>> grows;
  for (const auto& g : c.groups) {
    for (SizeClass k : kAllSizeClasses)
      if (const auto& s = g.by_class[static_cast<size_t>(k)]; s.count + s.not_measured > 0)
        grows.push_back(stats_row({std::string(family_name(g.family)), g.label, std::string(to_string(k))}, s));
    grows.push_back(stats_row({std::string(family_name(g.family)), g.label, "all"}, g.all));
  }
  L.table(ghead, gright, std::move(grows));
  models_table(L, c);
}

// The tuned table against the vendor library timed in the same after run (the PTPC study's table).
void vendor_section(Layout& L, const Report& r) {
  if (!r.vs_vendor) return;
  L.heading("Against the vendor library");
  L.para("The after run also timed the vendor library's own pick for every shape (bench's baseline: cuBLASLt on "
         "NVIDIA). Speedup = vendor time / time of what the runtime runs with the tuned table, both from the after "
         "file (`cktune compare --vs-baseline`).");
  class_table(L, *r.vs_vendor);
  models_table(L, *r.vs_vendor);
}

// "x floor": time over the hardware floor, two decimals ("1.00x" is at the floor).
std::string floor_ratio_text(double us, double floor_us) {
  if (!(us > 0) || !std::isfinite(us) || !(floor_us > 0)) return "-";
  return fmt::format("{:.2f}x", us / floor_us);
}

std::string geomean_text(const std::vector<double>& v) {
  if (v.empty()) return "-";
  double s = 0;
  for (double x : v) s += std::log(x);
  return fmt::format("{:.2f}x", std::exp(s / static_cast<double>(v.size())));
}

// How far the tuned shapes are from what the chip allows (issue #13's "% of the floors", for every user).
void floors_section(Layout& L, const Report& r) {
  const HardwareFloors& f = r.floors;
  L.heading("Against the hardware floors");
  if (!f.peaks) {
    L.para(f.missing);
    return;
  }
  const DevicePeaks& p = *f.peaks;
  std::set<MathType> types;
  for (const auto& x : f.shapes) types.insert(x.math);
  std::vector<std::string> rates;
  for (MathType t : types)
    rates.push_back(p.tensor_tflops(t) > 0 ? fmt::format("{} {:g} TFLOP/s dense", to_string(t), p.tensor_tflops(t))
                                           : fmt::format("{}: no tensor rate (floor from the bytes alone)", to_string(t)));
  L.para(fmt::format(
      "A shape's floor is the larger of its arithmetic at the tensor peak and its fewest bytes (every input read once, "
      "the output written once) at the memory bandwidth: no kernel runs faster. x floor = the time of what the runtime "
      "runs with the tuned table over that floor. Peaks of {} ({}, {}): {}, memory {:g} TB/s. A chip sustains less "
      "than its datasheet, so the ratios overstate what is left to gain; --peak-tflops and --peak-tbps take measured "
      "ceilings instead.{}",
      f.device.empty() ? "the device" : f.device, p.model, p.source, fmt::join(rates, ", "), p.memory_tbps,
      std::any_of(f.shapes.begin(), f.shapes.end(), [](const FloorShape& x) { return spec(x.key.family).is_moe; })
          ? " Fused MoE reads the weights of the experts its tokens reach: the floor counts those the after run's "
            "routing reached (its rows' bw x time), else the number uniform routing reaches on average."
          : ""));
  std::vector<std::vector<std::string>> rows;
  auto add = [&](const std::string& scope, const std::string& range, auto keep) {
    std::vector<double> after, vendor;
    size_t memory = 0;
    double best = 0, worst = 0;
    for (const auto& x : f.shapes) {
      if (!keep(x)) continue;
      const double q = x.after_us / x.floor.us();
      best = after.empty() ? q : std::min(best, q);
      worst = after.empty() ? q : std::max(worst, q);
      after.push_back(q);
      if (x.vendor_us > 0) vendor.push_back(x.vendor_us / x.floor.us());
      if (x.floor.memory_bound()) ++memory;
    }
    if (after.empty()) return;
    rows.push_back({scope, range, std::to_string(after.size()), std::to_string(memory), geomean_text(after),
                    fmt::format("{:.2f}x", best), fmt::format("{:.2f}x", worst), geomean_text(vendor)});
  };
  add("all", "", [](const FloorShape&) { return true; });
  for (SizeClass k : kAllSizeClasses)
    add(std::string(to_string(k)), std::string(size_class_range(k)), [k](const FloorShape& x) { return x.size_class == k; });
  L.table({"scope", "range", "shapes", "memory-bound", "x floor (geomean)", "closest", "furthest", "vendor x floor"},
          {false, false, true, true, true, true, true, true}, std::move(rows));

  std::vector<const FloorShape*> order;
  for (const auto& x : f.shapes) order.push_back(&x);
  std::sort(order.begin(), order.end(), [](const FloorShape* a, const FloorShape* b) {
    return a->after_us / a->floor.us() > b->after_us / b->floor.us();
  });
  if (order.size() > 10) order.resize(10);
  L.heading("Furthest from the floor", 3);
  L.para("Where the most is left: the shapes whose tuned time is the largest multiple of their floor.");
  // One group (one (N,K) or MoE configuration): its size alone tells the shapes apart.
  const bool one_group = std::all_of(f.shapes.begin(), f.shapes.end(), [&](const FloorShape& x) {
    return x.key.family == f.shapes.front().key.family && x.key.group() == f.shapes.front().key.group();
  });
  auto label = [&](const ProblemKey& k) {
    return one_group ? fmt::format("{} {}={}", family_name(k.family), spec(k.family).size_column, k.size())
                     : fmt::format("{} {}", family_name(k.family), k.to_string());
  };
  std::vector<std::vector<std::string>> far;
  for (const FloorShape* x : order) {
    far.push_back({label(x->key), std::string(to_string(x->size_class)),
                   x->floor.memory_bound() ? "memory" : "compute", value_text(x->floor.us(), Metric::Us),
                   value_text(x->after_us, Metric::Us), floor_ratio_text(x->after_us, x->floor.us()),
                   fmt::format("{:.1f}", x->key.flops() / (x->after_us * 1e6)),
                   fmt::format("{:.2f}", x->bytes / (x->after_us * 1e6)),
                   floor_ratio_text(x->vendor_us, x->floor.us())});
  }
  L.table({"shape", "class", "bound", "floor us", "after us", "x floor", "TFLOP/s", "TB/s", "vendor x floor"},
          {false, false, false, true, true, true, true, true, true}, std::move(far));
}

void charts_section(Layout& L, const Comparison& c) {
  L.heading("All groups on the same axes");
  L.para(fmt::format("Top: speedup ({}) against {} on a log2 axis, one colour per group, bars from the p10..p90 "
                     "ranges of both runs; 1.0 is no change. Bottom: median latency in µs after tuning (filled) "
                     "and before (hollow), log scale. Points are not joined: sizes between them were not measured.",
                     c.options.metric == Metric::Us ? "before/after time" : "after/before TFLOPS",
                     c.families().size() == 1 && spec(c.families()[0]).is_moe ? "token" : "M (token for MoE)"));
  L.chart(kOverviewChart);
  L.heading("Speedup against size per group", 3);
  L.para("One chart per group; dashed lines mark the size classes (64, 512); green improved, red regressed, grey "
         "within noise.");
  for (size_t i = 0; i < c.groups.size(); ++i) L.chart(i);
}

void shapes_table_section(Layout& L, const Comparison& c, const HardwareFloors& floors) {
  L.heading("Per-shape comparison");
  const bool with_floor = floors.peaks.has_value();
  const Metric m = c.options.metric;
  const std::string unit = m == Metric::Us ? "us" : "TFLOPS";
  for (Family f : c.families()) {
    L.heading(std::string(family_name(f)), 3);
    std::vector<std::string> head;
    std::vector<bool> right;
    for (auto col : spec(f).untuned) {
      head.emplace_back(col);
      right.push_back(true);
    }
    head.insert(head.end(), {"class", "before " + unit, "p10–p90", "after " + unit, "p10–p90", "speedup",
                             "change", "kernel before", "kernel after", "note"});
    right.insert(right.end(), {false, true, true, true, true, true, false, false, false, false});
    if (with_floor) {
      head.insert(head.end() - 4, "after x floor");
      right.insert(right.end() - 4, true);
    }
    std::vector<std::vector<std::string>> rows;
    for (const auto& s : c.shapes) {
      if (s.key.family != f) continue;
      std::vector<std::string> row = s.key.cells;
      row.insert(row.end(), {std::string(to_string(s.size_class)), value_text(s.before, m),
                             range_text(s.before_lo, s.before_hi, m), value_text(s.after, m),
                             range_text(s.after_lo, s.after_hi, m), format_speedup(s.speedup), change_text(s.change),
                             s.before_kernel.empty() ? s.before_backend : s.before_kernel,
                             s.after_kernel.empty() ? s.after_backend : s.after_kernel, s.note});
      if (with_floor) {
        const FloorShape* x = floors.find(s.key);
        row.insert(row.end() - 4, x ? floor_ratio_text(x->after_us, x->floor.us()) : "-");
      }
      rows.push_back(std::move(row));
    }
    L.table(std::move(head), std::move(right), std::move(rows));
  }
  auto unmatched = [&](const std::vector<ProblemKey>& keys, const std::string& where) {
    if (keys.empty()) return;
    std::vector<std::string> items;
    for (const auto& k : keys) items.push_back(fmt::format("{} {}", family_name(k.family), k.to_string()));
    L.para(fmt::format("{} shape(s) only in {}:", keys.size(), where));
    L.bullets(std::move(items));
  };
  unmatched(c.only_before, "the before file");
  unmatched(c.only_after, "the after file");
  if (!c.warnings.empty()) {
    L.para("Warnings:");
    L.bullets(c.warnings);
  }
}

void files_section(Layout& L, const ReportOptions& o, const Report& r) {
  L.heading("Files");
  std::vector<std::vector<std::string>> rows = {
      {"before measurements", o.before.empty() ? absolute(o.after) + " (against rows)" : absolute(o.before)},
      {"after measurements", absolute(o.after)}};
  if (r.tuned) rows.push_back({"tuned table", r.tuned->path});
  if (!r.verdict.deploy_table.empty()) rows.push_back({"table to deploy (regressed rows left out)", r.verdict.deploy_table});
  if (r.weighting) rows.push_back({"call counts", r.weighting->path});
  if (!r.provenance_path.empty()) rows.push_back({"provenance", r.provenance_path});
  if (!o.markdown_path.empty()) rows.push_back({"this report (Markdown)", absolute(o.markdown_path)});
  if (!o.html_path.empty()) rows.push_back({"this report (HTML)", absolute(o.html_path)});
  L.table({"what", "path"}, {false, false}, std::move(rows));
  if (!o.command_line.empty()) L.para(fmt::format("Made by: `{}`", o.command_line));
}

void usage_section(Layout& L, const Report& r) {
  L.heading("Using the tuned table");
  if (!r.tuned) {
    L.para("No tuned table was given (--tuned), so there is no file to point AITER at. Re-run the report with "
           "--tuned to get the exact lines.");
    return;
  }
  const TunedTableInfo& t = *r.tuned;
  const auto& s = spec(t.family);
  std::string base = fmt::format("/path/to/aiter/aiter/configs/{}", s.tuned_file);
  L.para(fmt::format("AITER reads the {} table named by `{}` in the environment of the process that loads AITER "
                     "(the sglang or vLLM server). To use this table alone:",
                     family_name(t.family), s.env_var));
  L.code(fmt::format("export {}={}", s.env_var, t.path));
  L.para(fmt::format("The variable also takes a ':'-separated list of tables, which keeps AITER's own table for the "
                     "shapes not tuned here. Tables in one list must not share a key (AITER stops with "
                     "a duplicate-shape error), so check them together first:"));
  L.code(fmt::format("cktune merge --check {} {}\nexport {}={}:{}", t.path, base, s.env_var, t.path, base));
  L.para(fmt::format("Rows only match a GPU with the same gfx and cu_num as the table ({}).", joined(t.machines)));
}

void verdict_section(Layout& L, const Report& r) {
  const ReportVerdict& v = r.verdict;
  L.heading(fmt::format("Verdict: {}", v.headline));
  L.bullets(v.reasons);
  if (!v.command.empty()) {
    L.para(v.kind == ReportVerdict::Kind::DoNotDeploy ? "Nothing to deploy. To look at the shapes again:"
                                                      : "The one command that deploys it:");
    L.code(v.command);
  }
}

void weighting_section(Layout& L, const Report& r) {
  if (!r.weighting) return;
  const CallWeighting& w = *r.weighting;
  std::vector<std::string> items = {fmt::format("call counts: {}", w.path)};
  if (w.covered_calls == 0) {
    items.push_back(fmt::format("none of the {} counted calls lands on a compared shape", w.total_calls));
  } else {
    items.push_back(fmt::format("{} of {} counted calls ({:.1f}%) land on compared shapes", w.covered_calls,
                                w.total_calls, 100.0 * static_cast<double>(w.covered_calls) /
                                                   static_cast<double>(std::max<std::uint64_t>(1, w.total_calls))));
    items.push_back(fmt::format("call-weighted geometric-mean speedup: {}", format_speedup(w.geomean)));
    if (r.comparison.options.metric == Metric::Us)
      items.push_back(fmt::format("GEMM/MoE time of those calls: {:+.1f}% ({} saved)", -w.time_saved_pct,
                                  w.time_saved_pct >= 0 ? "time" : "no time"));
  }
  L.heading("Weighted by call counts", 3);
  L.bullets(std::move(items));
}

}  // namespace

ReportVerdict decide(const Comparison& c, const std::optional<TunedTableInfo>& tuned) {
  ReportVerdict v;
  const SpeedupStats& s = c.overall;
  std::vector<std::string> failed;
  for (const auto& sh : c.shapes) {
    if (sh.change == Change::Regressed) v.drop.push_back({sh.key, MachineId{sh.after_gfx, sh.after_cu_num}});
    // A shape that ran before and fails after: the tuned row breaks it.
    if (sh.change == Change::NotMeasured && sh.before_us > 0 && !(sh.after_us > 0))
      failed.push_back(fmt::format("{} ({})", key_text(sh.key), sh.note));
  }
  v.reasons.push_back(fmt::format("{} shapes compared: {} improved, {} regressed, {} within noise, {} not measured; "
                                  "geometric-mean speedup {}",
                                  c.shapes.size(), s.improved, s.regressed, s.within_noise, s.not_measured,
                                  s.count ? format_speedup(s.geomean) : "n/a"));
  if (!failed.empty()) {
    v.kind = ReportVerdict::Kind::DoNotDeploy;
    v.reasons.push_back(fmt::format("{} shape(s) ran before tuning and fail after it: {}", failed.size(),
                                    fmt::join(failed, "; ")));
  } else if (s.improved == 0) {
    v.kind = ReportVerdict::Kind::DoNotDeploy;
    v.reasons.push_back("no shape improved outside the measured noise: the table brings no gain");
  } else if (!v.drop.empty()) {
    v.kind = ReportVerdict::Kind::DeployWithout;
    std::vector<std::string> keys;
    for (const auto& d : v.drop) keys.push_back(key_text(d.key));
    v.reasons.push_back(fmt::format("{} shape(s) regressed outside noise; their tuned rows are left out: {}",
                                    v.drop.size(), fmt::join(keys, "; ")));
  } else {
    v.kind = ReportVerdict::Kind::Deploy;
    v.reasons.push_back("no shape regressed outside noise and none failed");
  }
  // Two runs with the vendor baseline in both: changes the baseline made too are the machine's, maybe not the
  // table's. The verdict still follows the noise rule (dropping a row is the safe side); the reasons say so.
  if (c.baseline_drift.explained > 0) {
    size_t up = 0, down = 0;
    for (const auto& sh : c.shapes) {
      if (!explained_by_baseline(sh, c.options.threshold_pct)) continue;
      if (sh.change == Change::Improved) ++up;
      else if (sh.change == Change::Regressed) ++down;
    }
    v.reasons.push_back(fmt::format(
        "{} improved and {} regressed shape(s) changed no more than the vendor baseline did on the same shape "
        "between the two runs: the machine moved there, so those changes may not be the table's; measure both in "
        "one run to be sure (cktune bench --config TUNED --against OLD)",
        up, down));
  }
  std::vector<std::string> drop_text;
  for (const auto& d : v.drop) drop_text.push_back(key_text(d.key));
  v.headline = v.kind == ReportVerdict::Kind::Deploy          ? "deploy"
               : v.kind == ReportVerdict::Kind::DoNotDeploy ? "do not deploy"
                                                            : fmt::format("deploy without rows {}",
                                                                          fmt::join(drop_text, "; "));
  if (v.kind == ReportVerdict::Kind::DoNotDeploy) {
    v.command = c.before_info.path == c.after_info.path
                    ? fmt::format("cktune compare {}", absolute(c.after_info.path))
                    : fmt::format("cktune compare {} {}", absolute(c.before_info.path), absolute(c.after_info.path));
  } else if (!tuned) {
    v.reasons.push_back("no tuned table was given (--tuned), so the report cannot name the file to deploy");
  } else if (v.kind == ReportVerdict::Kind::Deploy) {
    v.command = fmt::format("export {}={}", spec(tuned->family).env_var, tuned->path);
  }
  return v;
}

CallWeighting weight_by_calls(const Comparison& c, const std::string& counts_path) {
  CallWeighting w;
  w.path = absolute(counts_path);
  nlohmann::json j = read_json(counts_path);
  if (!j.is_object() || !j.contains("families") || !j["families"].is_object())
    throw InputError(counts_path, 0, 0, "not the JSON summary of `cktune capture` (no \"families\" object)",
                     "write it with: cktune capture LOGS... --json > counts.json");
  // (family, group, size) -> calls.
  std::map<std::tuple<Family, std::string, long>, std::uint64_t> calls;
  std::set<Family> compared;
  for (const auto& sh : c.shapes) compared.insert(sh.key.family);
  for (auto it = j["families"].begin(); it != j["families"].end(); ++it) {
    auto fam = family_from_name(it.key());
    if (!fam || !compared.count(*fam)) continue;
    const bool moe = spec(*fam).is_moe;
    const nlohmann::json& observed = it.value().value("observed", nlohmann::json::object());
    for (auto g = observed.begin(); g != observed.end(); ++g) {
      if (!g.value().is_object()) continue;
      for (auto sz = g.value().begin(); sz != g.value().end(); ++sz) {
        long size = 0;
        try {
          size = std::stol(sz.key());
        } catch (const std::exception&) {
          throw InputError(counts_path, 0, 0, fmt::format("families.{}.observed.{}: size '{}' is not a number",
                                                          it.key(), g.key(), sz.key()));
        }
        if (!sz.value().is_number_unsigned())
          throw InputError(counts_path, 0, 0, fmt::format("families.{}.observed.{}.{}: count is not a whole number",
                                                          it.key(), g.key(), sz.key()));
        if (moe) size = static_cast<long>(std::bit_ceil(static_cast<unsigned long>(std::max(1L, size))));
        std::uint64_t n = sz.value().get<std::uint64_t>();
        calls[{*fam, g.key(), size}] += n;
        w.total_calls += n;
      }
    }
  }
  double log_sum = 0, before_sum = 0, after_sum = 0;
  for (const auto& sh : c.shapes) {
    if (sh.change == Change::NotMeasured) continue;
    auto it = calls.find({sh.key.family, sh.group, sh.size});
    if (it == calls.end() || it->second == 0) continue;
    const double n = static_cast<double>(it->second);
    w.covered_calls += it->second;
    log_sum += n * std::log(sh.speedup);
    before_sum += n * sh.before_us;
    after_sum += n * sh.after_us;
  }
  if (w.covered_calls) {
    w.geomean = std::exp(log_sum / static_cast<double>(w.covered_calls));
    if (before_sum > 0) w.time_saved_pct = 100.0 * (1.0 - after_sum / before_sum);
  }
  return w;
}

size_t write_filtered_table(const std::string& tuned, Family family, const std::vector<ReportVerdict::Dropped>& drop,
                            const std::string& out) {
  CsvTable t = read_csv(tuned);
  const auto& s = spec(family);
  std::vector<size_t> idx;
  for (auto col : s.untuned) {
    auto i = t.column(col);
    if (!i) throw InputError(tuned, t.header_line, 1, fmt::format("no key column '{}'", col));
    idx.push_back(*i);
  }
  const std::vector<MachineId> row_machine = row_machines(t, family);
  std::map<std::vector<std::string>, std::vector<MachineId>> gone;
  for (const auto& d : drop)
    if (d.key.family == family) gone[d.key.cells].push_back(d.machine);
  std::vector<std::vector<std::string>> kept;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    std::vector<std::string> cells;
    for (size_t i = 0; i < idx.size(); ++i) cells.push_back(canonical_cell(s.untuned[i], t.rows[r][idx[i]]));
    auto it = gone.find(cells);
    if (it != gone.end()) {
      const MachineId& m = row_machine[r];
      if (std::any_of(it->second.begin(), it->second.end(), [&](const MachineId& d) { return d.matches(m); }))
        continue;
    }
    kept.push_back(std::move(t.rows[r]));
  }
  const size_t dropped = t.rows.size() - kept.size();
  t.rows = std::move(kept);
  write_csv_atomic(t, out);
  return dropped;
}

Report build_report(const ReportOptions& o) {
  if (o.after.empty()) throw Error("report needs --after (and --before, unless --after is a `bench --against` file)");
  // load -> compare -> read tuned table, provenance and counts -> decide -> lay out
  CompareInput before, after;
  CompareInput after_all = load_compare_input(o.after);
  if (o.before.empty()) {
    std::tie(before, after) = split_interleaved(after_all, o.compare.role);
  } else {
    before = load_compare_input(o.before);
    after = after_all;
  }
  Report r;
  r.date = format_timestamp(std::chrono::system_clock::now());
  r.comparison = compare(before, after, o.compare);
  const bool has_vendor = std::any_of(after_all.rows.begin(), after_all.rows.end(),
                                      [](const ResultRow& row) { return row.role == ResultRole::Baseline; });
  if (has_vendor && o.compare.role == ResultRole::Dispatch) {
    auto [vendor, tuned] = split_vs_baseline(std::move(after_all));
    r.vs_vendor = compare(std::move(vendor), std::move(tuned), o.compare);
  }
  if (!o.tuned.empty()) r.tuned = read_tuned(o.tuned, r.comparison);
  if (std::string p = find_provenance(o); !p.empty()) {
    r.provenance_path = absolute(p);
    r.provenance = read_json(p);
  }
  const bool moe = r.tuned && spec(r.tuned->family).is_moe;
  if (moe)
    for (const std::string& p : find_profiles(o, r.provenance)) moe_times_from_profile(*r.tuned, p);
  if (r.tuned && o.compare.role == ResultRole::Dispatch) {
    r.agreement = tune_bench_agreement(r.comparison, *r.tuned, r.vs_vendor ? &*r.vs_vendor : nullptr);
    r.agreement->needs_profile = moe && r.tuned->profile.empty();
  }
  if (!o.counts.empty()) r.weighting = weight_by_calls(r.comparison, o.counts);
  r.floors = hardware_floors(r.comparison, r.vs_vendor ? &*r.vs_vendor : nullptr,
                             distinct(after.rows, [](const ResultRow& x) { return x.device; }), o);
  r.verdict = decide(r.comparison, r.tuned);
  if (r.verdict.kind == ReportVerdict::Kind::DeployWithout && r.tuned) {
    // The table to deploy is the tuned one without the regressed rows: written next to the report.
    std::string where = o.deploy_table;
    const std::string anchor = !o.markdown_path.empty() ? o.markdown_path : o.html_path;
    if (where.empty() && !anchor.empty())
      where = (fs::path(absolute(anchor)).parent_path() / (fs::path(r.tuned->path).stem().string() + ".deploy.csv"))
                  .string();
    const auto& sp = spec(r.tuned->family);
    if (!where.empty()) {
      r.verdict.dropped_rows = write_filtered_table(o.tuned, r.tuned->family, r.verdict.drop, where);
      r.verdict.deploy_table = absolute(where);
      r.verdict.reasons.push_back(fmt::format("wrote {}: the tuned table without {} row(s) of those shapes",
                                              r.verdict.deploy_table, r.verdict.dropped_rows));
      r.verdict.command = fmt::format("export {}={}", sp.env_var, r.verdict.deploy_table);
    } else {
      r.verdict.reasons.push_back("the report went to stdout, so no filtered table was written: add -o FILE (or "
                                  "--deploy-table FILE) to get it");
    }
  }
  std::vector<std::string> fams;
  for (Family f : r.comparison.families()) fams.emplace_back(family_name(f));
  r.title = fmt::format("cktune tuning report: {}", fmt::join(fams, ", "));

  Layout L(r.blocks);
  const SpeedupStats& s = r.comparison.overall;
  verdict_section(L, r);
  // The counts are in the verdict's first reason; the date line only dates the report.
  L.para(fmt::format("Report made {} from {} measured shapes.", r.date, s.count));
  weighting_section(L, r);
  environment_section(L, before, after, r);
  shapes_section(L, r);
  agreement_section(L, r);
  settings_section(L, before, after, r);
  summary_section(L, r.comparison);
  vendor_section(L, r);
  floors_section(L, r);
  charts_section(L, r.comparison);
  shapes_table_section(L, r.comparison, r.floors);
  files_section(L, o, r);
  usage_section(L, r);
  return r;
}

std::string run_report(const ReportOptions& o) {
  Report r = build_report(o);
  std::string md = render_report_markdown(r);
  // Render both before writing either, so a failure never leaves one of the pair behind.
  std::string html = o.html_path.empty() ? std::string() : render_report_html(r);
  if (!o.markdown_path.empty()) {
    write_file_atomic(o.markdown_path, md);
    log().info("wrote {}", absolute(o.markdown_path));
  }
  if (!o.html_path.empty()) {
    write_file_atomic(o.html_path, html);
    log().info("wrote {}", absolute(o.html_path));
  }
  return md;
}

}  // namespace cktune
