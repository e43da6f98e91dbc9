#include "cktune/core/names.hpp"
#include "cktune/compare/compare.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cktune/capture/presets.hpp"
#include "cktune/compare/aiter_optest.hpp"
#include "cktune/core/error.hpp"
#include "cktune/core/io.hpp"
#include "cktune/core/log.hpp"

namespace cktune {

namespace {

constexpr EnumName<Metric> kMetrics[] = {{Metric::Us, "us"}, {Metric::Tflops, "tflops"}};
constexpr EnumName<SizeClass> kClasses[] = {
    {SizeClass::Decode, "decode"}, {SizeClass::Medium, "medium"}, {SizeClass::Prefill, "prefill"}};
constexpr EnumName<Change> kChanges[] = {{Change::Improved, "improved"},
                                                            {Change::Regressed, "regressed"},
                                                            {Change::WithinNoise, "within_noise"},
                                                            {Change::NotMeasured, "not_measured"}};

std::optional<long long> as_integer(const std::string& s) {
  long long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// Key cells compared as numbers where both are integers, so N=896 sorts before N=7168.
int compare_cells(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    auto x = as_integer(a[i]), y = as_integer(b[i]);
    if (x && y) {
      if (*x != *y) return *x < *y ? -1 : 1;
    } else if (a[i] != b[i]) {
      return a[i] < b[i] ? -1 : 1;
    }
  }
  return a.size() == b.size() ? 0 : (a.size() < b.size() ? -1 : 1);
}

// Group cells first (so a group's shapes are together), then the size.
std::vector<std::string> group_cells(const ProblemKey& k) {
  std::vector<std::string> out;
  const auto& s = spec(k.family);
  for (size_t i = 0; i < s.untuned.size() && i < k.cells.size(); ++i)
    if (s.untuned[i] != s.size_column) out.push_back(k.cells[i]);
  return out;
}

bool shape_less(const ProblemKey& a, const ProblemKey& b) {
  if (a.family != b.family) return a.family < b.family;
  if (int c = compare_cells(group_cells(a), group_cells(b)); c != 0) return c < 0;
  return compare_cells(a.cells, b.cells) < 0;
}

double metric_value(const ResultRow& r, Metric m) {
  if (m == Metric::Us) return r.us;
  if (r.tflops > 0 && std::isfinite(r.tflops)) return r.tflops;
  if (r.measured()) return r.key.flops() / (r.us * 1e6);
  return 0;
}

bool metric_usable(const ResultRow& r, Metric m) {
  double v = metric_value(r, m);
  return m == Metric::Us ? r.measured() : (std::isfinite(v) && v > 0);
}

// One row per key from a file's rows, after the role/backend filter; later duplicates replace earlier ones.
std::map<ProblemKey, ResultRow> index_rows(const CompareInput& in, const CompareOptions& o,
                                           std::vector<std::string>& warnings) {
  std::map<ProblemKey, ResultRow> out;
  size_t duplicates = 0;
  for (const auto& r : in.rows) {
    if (r.role != o.role) continue;
    if (!o.backend.empty() && r.backend != o.backend) continue;
    auto [it, fresh] = out.insert_or_assign(r.key, r);
    (void)it;
    if (!fresh) ++duplicates;
  }
  if (duplicates)
    warnings.push_back(fmt::format("{}: {} shape(s) appear more than once among the {} rows; the last row of each is used",
                                   in.path, duplicates, to_string(o.role)));
  return out;
}

// The distinct non-empty values of `field` over a side's rows: its machines, boards or protocols (none where its rows
// record none: the CPU has no board, files before 2026-11-30 name none).
template <class Field>
std::set<std::string> distinct(const std::map<ProblemKey, ResultRow>& rows, Field field) {
  std::set<std::string> out;
  for (const auto& [k, r] : rows)
    if (std::string v = field(r); !v.empty()) out.insert(std::move(v));
  return out;
}
std::string machine_of(const ResultRow& r) {
  return r.gfx.empty() && r.cu_num == 0 ? std::string() : fmt::format("{}/cu_num={}", r.gfx.empty() ? "?" : r.gfx, r.cu_num);
}
std::string board_of(const ResultRow& r) { return r.uuid; }
std::string protocol_of(const ResultRow& r) { return r.protocol; }

// Why a side has no usable value, from its verdict, time and reason.
std::string unusable_note(const char* side, const ResultRow& r) {
  std::string what = r.verdict && *r.verdict != Verdict::Passed ? std::string(to_string(*r.verdict))
                     : std::isinf(r.us)                           ? std::string("timed_out")
                                                                  : std::string("not measured");
  return r.reason.empty() ? fmt::format("{}: {}", side, what) : fmt::format("{}: {}: {}", side, what, r.reason);
}

bool has_spread(const ResultRow& r) {
  return r.measured() && r.us_p10 > 0 && r.us_p90 >= r.us_p10 && std::isfinite(r.us_p90);
}

// p10..p90 of a row in metric units. TFLOPS is work / time, so the interval of times maps to one of
// TFLOPS with the ends swapped (the fastest time is the highest TFLOPS).
std::pair<double, double> interval(const ResultRow& r, Metric m, double value) {
  if (!has_spread(r)) return {-1, -1};
  if (m == Metric::Us) return {r.us_p10, r.us_p90};
  return {value * r.us / r.us_p90, value * r.us / r.us_p10};
}

// The rule documented at Change. `s` has speedup and both intervals filled in.
Change classify(const ShapeComparison& s, Metric m, double threshold_pct) {
  const double t = threshold_pct / 100.0;
  const bool up = s.speedup > 1.0 + t, down = s.speedup < 1.0 - t;
  if (!up && !down) return Change::WithinNoise;
  if (!s.spread_known) return up ? Change::Improved : Change::Regressed;
  // "better" is a lower time for us and a higher TFLOPS.
  const bool after_better = m == Metric::Us ? s.after_hi < s.before_lo : s.after_lo > s.before_hi;
  const bool after_worse = m == Metric::Us ? s.after_lo > s.before_hi : s.after_hi < s.before_lo;
  if (up && after_better) return Change::Improved;
  if (down && after_worse) return Change::Regressed;
  return Change::WithinNoise;
}

// Two separate runs: the vendor baseline, one kernel timed in both, shows how much the machine changed
// per shape. Verdicts keep the noise rule; the shapes whose baseline moved get a note, and a warning says
// how many of the changed shapes moved no more than their baseline did.
void check_baseline_drift(const CompareInput& before, const CompareInput& after, Comparison& c) {
  CompareOptions base = c.options;
  base.role = ResultRole::Baseline;
  base.backend.clear();
  std::vector<std::string> ignored;
  const auto bb = index_rows(before, base, ignored), ba = index_rows(after, base, ignored);
  if (bb.empty() || ba.empty()) return;
  const double t = c.options.threshold_pct / 100.0;
  auto& d = c.baseline_drift;
  double log_sum = 0;
  for (auto& s : c.shapes) {
    auto ib = bb.find(s.key), ia = ba.find(s.key);
    if (ib == bb.end() || ia == ba.end()) continue;
    const ResultRow &rb = ib->second, &ra = ia->second;
    if (!rb.measured() || !ra.measured() || rb.kernel_name != ra.kernel_name) continue;
    s.baseline_speedup = rb.us / ra.us;
    if (d.count == 0) d.min = d.max = s.baseline_speedup;
    ++d.count;
    log_sum += std::log(s.baseline_speedup);
    d.min = std::min(d.min, s.baseline_speedup);
    d.max = std::max(d.max, s.baseline_speedup);
    const bool moved = std::abs(s.baseline_speedup - 1.0) > t;
    if (moved) {
      ++d.moved;
      const std::string note = fmt::format("baseline {}", format_speedup(s.baseline_speedup));
      s.note = s.note.empty() ? note : s.note + "; " + note;
    }
    if (s.change == Change::Improved || s.change == Change::Regressed) ++d.changed;
    if (explained_by_baseline(s, c.options.threshold_pct)) ++d.explained;
  }
  if (d.count == 0) return;
  d.geomean = std::exp(log_sum / static_cast<double>(d.count));
  if (d.moved > 0)
    c.warnings.push_back(fmt::format(
        "the vendor baseline, one kernel timed in both runs, moved beyond ±{}% on {} of {} shapes (geomean {}, {} to "
        "{}): on those the machine itself changed between the runs; {} of the {} shapes called improved or regressed "
        "changed no more than their baseline did. Measure both in one run: cktune bench --config NEW.csv --against OLD.csv",
        c.options.threshold_pct, d.moved, d.count, format_speedup(d.geomean), format_speedup(d.min),
        format_speedup(d.max), d.explained, d.changed));
}

}  // namespace

std::string_view to_string(Metric metric) {
  return enum_text(kMetrics, metric, "?");
}

std::optional<Metric> metric_from_string(std::string_view text) {
  if (auto v = enum_from_text(kMetrics, text)) return v;
  return std::nullopt;
}

std::string_view to_string(SizeClass c) {
  return enum_text(kClasses, c, "?");
}

std::string_view size_class_range(SizeClass c) {
  switch (c) {
    case SizeClass::Decode: return "1-63";
    case SizeClass::Medium: return "64-512";
    case SizeClass::Prefill: return ">512";
  }
  return "?";
}

SizeClass size_class(long m) {
  if (m < 64) return SizeClass::Decode;
  if (m <= 512) return SizeClass::Medium;
  return SizeClass::Prefill;
}

std::string_view to_string(Change c) {
  return enum_text(kChanges, c, "?");
}

CompareInput load_compare_input(const std::string& path) {
  CompareInput in;
  in.path = path;
  std::string text = read_input(path);
  std::string source = path == "-" ? "<stdin>" : path;

  // A log with markdown tables first: such a file is not CSV.
  std::vector<AiterTable> tables = find_aiter_markdown_tables(text, source);
  if (!tables.empty()) {
    std::set<std::string> kinds;
    for (const auto& t : tables) {
      kinds.insert(std::string(to_string(t.kind)));
      auto rows = aiter_table_rows(t);
      in.rows.insert(in.rows.end(), std::make_move_iterator(rows.begin()), std::make_move_iterator(rows.end()));
    }
    in.format = fmt::format("aiter-markdown:{}", fmt::join(kinds, "+"));
    if (tables.size() > 1) log().info("{}: {} op-test tables read", source, tables.size());
    return in;
  }

  CsvTable table;
  try {
    table = parse_csv(text, source);
  } catch (const InputError& e) {
    throw Error(fmt::format("{}: not a cktune results file or an AITER op-test table ({})", source, e.what()),
                "pass `cktune bench` output, or the log / CSV of op_tests/test_gemm_a8w8_blockscale.py or "
                "op_tests/test_moe_2stage.py (see docs/cli/compare.md)");
  }
  if (is_results_table(table)) {
    ResultsFile f = parse_results(table);
    in.rows = std::move(f.rows);
    in.format = "cktune-results";
    return in;
  }
  if (auto kind = detect_aiter_table(table.header)) {
    in.rows = aiter_table_rows(AiterTable{*kind, std::move(table)});
    in.format = fmt::format("aiter-csv:{}", to_string(*kind));
    return in;
  }
  throw Error(fmt::format("{}: not a cktune results file or an AITER op-test table (columns: {})", source,
                          fmt::join(table.header, ",")),
              "a results file has columns family,...,us; an op-test table has m,n,k,ck us or token,...,us "
              "(see docs/cli/compare.md)");
}

bool has_against_rows(const CompareInput& in) {
  return std::any_of(in.rows.begin(), in.rows.end(), [](const ResultRow& r) { return r.role == ResultRole::Against; });
}

std::pair<CompareInput, CompareInput> split_interleaved(CompareInput in, ResultRole role) {
  if (!has_against_rows(in))
    throw Error(fmt::format("{}: no rows of role 'against', so it does not hold a before run", in.path),
                "an interleaved file comes from `cktune bench --against ...`; for two separate runs pass both "
                "files: cktune compare BEFORE AFTER");
  return split_by_role(std::move(in), ResultRole::Against, role);
}

std::pair<CompareInput, CompareInput> split_vs_baseline(CompareInput in) {
  if (std::none_of(in.rows.begin(), in.rows.end(), [](const ResultRow& r) { return r.role == ResultRole::Baseline; }))
    throw Error(fmt::format("{}: no rows of role 'baseline', so it holds no vendor-library run", in.path),
                "bench times the vendor baseline unless --no-baseline is given and the family has a vendor library on "
                "the device (cuBLASLt on NVIDIA); run `cktune bench --config TUNED` without --no-baseline");
  return split_by_role(std::move(in), ResultRole::Baseline, ResultRole::Dispatch);
}

std::pair<CompareInput, CompareInput> split_by_role(CompareInput in, ResultRole before_role, ResultRole role) {
  CompareInput before{in.path, fmt::format("{} ({} rows)", in.format, to_string(before_role)), {}};
  CompareInput after{in.path, fmt::format("{} ({} rows)", in.format, to_string(role)), {}};
  for (auto& r : in.rows) {
    if (r.role == before_role) {
      r.role = role;
      before.rows.push_back(std::move(r));
    } else if (r.role == role) {
      after.rows.push_back(std::move(r));
    }
  }
  return {std::move(before), std::move(after)};
}

double spread_pct(double lo, double hi, double median) {
  if (!(lo > 0) || !(hi >= lo) || !(median > 0) || !std::isfinite(hi) || !std::isfinite(median)) return -1;
  return 100.0 * (hi - lo) / median;
}

bool explained_by_baseline(const ShapeComparison& s, double threshold_pct) {
  if (s.change != Change::Improved && s.change != Change::Regressed) return false;
  if (!(s.baseline_speedup > 0)) return false;
  return std::abs(s.speedup / s.baseline_speedup - 1.0) <= threshold_pct / 100.0;
}

std::string runs_text(const Comparison& c) {
  if (!c.separate_runs)
    return fmt::format("one run: both sides are rows of {}, so a change of the machine between runs does not "
                       "enter", c.before_info.path);
  return "two separate runs: each p10..p90 is measured inside its own run and cannot show a machine that "
         "changed between them (docs/reliability.md); `cktune bench --config NEW.csv --against OLD.csv` "
         "measures both in one run, interleaved";
}

std::string noise_rule_text(const CompareOptions& o) {
  return fmt::format(
      "improved / regressed: the {} speedup is beyond ±{}% AND the p10..p90 intervals of the two runs do not "
      "overlap; otherwise within noise (rows without p10/p90 are judged on the median ratio alone)",
      o.metric == Metric::Us ? "median-time" : "median-TFLOPS", o.threshold_pct);
}

std::vector<Family> Comparison::families() const {
  std::vector<Family> out;
  for (Family f : kAllFamilies)
    if (std::any_of(shapes.begin(), shapes.end(), [&](const ShapeComparison& s) { return s.key.family == f; }))
      out.push_back(f);
  return out;
}

SpeedupStats speedup_stats(const std::vector<const ShapeComparison*>& shapes) {
  SpeedupStats st;
  double sum = 0, log_sum = 0;
  for (const auto* s : shapes) {
    if (s->change == Change::NotMeasured) {
      ++st.not_measured;
      continue;
    }
    if (st.count == 0) st.min = st.max = s->speedup;
    ++st.count;
    sum += s->speedup;
    log_sum += std::log(s->speedup);
    st.min = std::min(st.min, s->speedup);
    st.max = std::max(st.max, s->speedup);
    if (s->change == Change::Improved) ++st.improved;
    else if (s->change == Change::Regressed) ++st.regressed;
    else ++st.within_noise;
  }
  if (st.count) {
    st.mean = sum / static_cast<double>(st.count);
    st.geomean = std::exp(log_sum / static_cast<double>(st.count));
  }
  return st;
}

std::string group_label(const ProblemKey& key) {
  std::string out;
  const auto& s = spec(key.family);
  for (size_t i = 0; i < s.untuned.size() && i < key.cells.size(); ++i) {
    if (s.untuned[i] == s.size_column) continue;
    if (!out.empty()) out += ',';
    out += fmt::format("{}={}", s.untuned[i], key.cells[i]);
  }
  return out;
}

bool ModelShapes::matches(const ProblemKey& key) const {
  if (spec(key.family).is_moe)
    return moe.count({key.get_int("model_dim"), key.get_int("inter_dim"), key.get_int("expert"), key.get_int("topk")}) > 0;
  return gemm_nk.count({key.get_int("N"), key.get_int("K")}) > 0;
}

std::string ModelShapes::label() const { return fmt::format("{} TP{}", model, tp); }

ModelShapes model_shapes(std::string_view text) {
  const size_t at = text.rfind('@');
  const auto tp = at == std::string_view::npos ? std::nullopt : as_integer(std::string(text.substr(at + 1)));
  if (at == 0 || !tp || *tp < 1 || *tp > 1024)
    throw Error(fmt::format("--models: '{}' is not NAME@TP", text),
                fmt::format("e.g. --models llama-4-maverick@4,deepseek-v3@8; presets: {}",
                            fmt::join(capture::preset_names(), "; ")));
  ModelShapes m;
  m.model = std::string(text.substr(0, at));
  m.tp = static_cast<int>(*tp);
  for (bool fuse : {true, false}) {
    capture::PlanOptions po;
    po.tp = m.tp;
    po.fuse_shared_experts = fuse;
    const capture::ModelPlan plan = capture::plan_preset(m.model, po);
    for (const auto& g : plan.gemms) m.gemm_nk.insert({g.n, g.k});
    for (const auto& e : plan.moes) m.moe.insert({e.model_dim, e.inter_dim, e.expert, e.topk});
  }
  return m;
}

std::string format_speedup(double s) {
  if (!(s > 0) || !std::isfinite(s)) return "n/a";
  return fmt::format("{:.3f}x", s);
}

Comparison compare(CompareInput before, CompareInput after, const CompareOptions& options) {
  for (const auto& ms : options.models)
    if (ms.model.empty()) throw Error("--models: an entry has no preset name", "write NAME@TP, e.g. llama-4-maverick@8");
  if (!(options.threshold_pct >= 0)) throw Error(fmt::format("--threshold {} must be >= 0", options.threshold_pct));
  Comparison c;
  c.options = options;
  auto b = index_rows(before, options, c.warnings);
  auto a = index_rows(after, options, c.warnings);
  c.separate_runs = before.path != after.path;
  c.before_info = CompareInput{before.path, before.format, {}};
  c.after_info = CompareInput{after.path, after.format, {}};

  auto mb = distinct(b, machine_of), ma = distinct(a, machine_of);
  if (!mb.empty() && !ma.empty() && mb != ma) {
    c.warnings.push_back(fmt::format("the files were measured on different machines: before {} / after {}",
                                     fmt::join(mb, " "), fmt::join(ma, " ")));
  } else if (auto bb = distinct(b, board_of), ba = distinct(a, board_of); !bb.empty() && !ba.empty() && bb != ba) {
    // Same model, other board: two H200s ran the same 8-token fused-MoE pipeline 86.9 and 93.4 us (docs/perf.md
    // 2026-11-30 18:10), more than most gains a table brings.
    c.warnings.push_back(fmt::format(
        "the files were measured on different boards of the same model: before {} / after {}; boards of one model "
        "time the same kernels a few percent apart, so part of a change may be the board's: measure both in one run "
        "(cktune bench --config TUNED --against OLD)",
        fmt::join(bb, " "), fmt::join(ba, " ")));
  }
  auto pb = distinct(b, protocol_of), pa = distinct(a, protocol_of);
  if (!pb.empty() && !pa.empty() && pb != pa)
    c.warnings.push_back(fmt::format("the measurement protocols differ: before {} / after {}", fmt::join(pb, " "),
                                     fmt::join(pa, " ")));

  for (const auto& [key, rb] : b) {
    auto it = a.find(key);
    if (it == a.end()) {
      c.only_before.push_back(key);
      continue;
    }
    const ResultRow& ra = it->second;
    ShapeComparison s;
    s.key = key;
    s.group = key.group();
    s.size = key.size();
    s.size_class = size_class(s.size);
    s.before = metric_value(rb, options.metric);
    s.after = metric_value(ra, options.metric);
    s.before_kernel = rb.kernel_name;
    s.after_kernel = ra.kernel_name;
    s.before_backend = rb.backend;
    s.after_backend = ra.backend;
    s.after_gfx = ra.gfx;
    s.after_cu_num = ra.cu_num;
    s.before_us = rb.measured() ? rb.us : -1;
    s.after_us = ra.measured() ? ra.us : -1;
    if (spec(key.family).is_moe && ra.measured() && ra.bw > 0 && std::isfinite(ra.bw) && !ra.version.empty())
      s.after_bytes = ra.bw * ra.us * 1e3;  // GB/s x us
    if (metric_usable(rb, options.metric) && metric_usable(ra, options.metric)) {
      const bool us = options.metric == Metric::Us;
      s.speedup = us ? s.before / s.after : s.after / s.before;
      std::tie(s.before_lo, s.before_hi) = interval(rb, options.metric, s.before);
      std::tie(s.after_lo, s.after_hi) = interval(ra, options.metric, s.after);
      s.spread_known = s.before_lo > 0 && s.after_lo > 0;
      if (s.spread_known) {
        // Worst and best pairing of the two intervals.
        s.speedup_lo = us ? s.before_lo / s.after_hi : s.after_lo / s.before_hi;
        s.speedup_hi = us ? s.before_hi / s.after_lo : s.after_hi / s.before_lo;
      } else {
        s.speedup_lo = s.speedup_hi = s.speedup;
      }
      s.change = classify(s, options.metric, options.threshold_pct);
    } else {
      std::vector<std::string> notes;
      if (!metric_usable(rb, options.metric)) notes.push_back(unusable_note("before", rb));
      if (!metric_usable(ra, options.metric)) notes.push_back(unusable_note("after", ra));
      s.note = fmt::format("{}", fmt::join(notes, "; "));
    }
    c.shapes.push_back(std::move(s));
  }
  for (const auto& [key, ra] : a)
    if (!b.count(key)) c.only_after.push_back(key);

  if (c.shapes.empty())
    throw Error(fmt::format("no shape matches between {} ({} {} rows) and {} ({} {} rows)", before.path, b.size(),
                            to_string(options.role), after.path, a.size(), to_string(options.role)),
                "both files must hold the same family and shapes; check --role/--backend and that the files are "
                "the before and after runs of the same shape list");

  if (c.separate_runs && options.role != ResultRole::Baseline) check_baseline_drift(before, after, c);

  auto by_shape = [](const ShapeComparison& x, const ShapeComparison& y) { return shape_less(x.key, y.key); };
  std::sort(c.shapes.begin(), c.shapes.end(), by_shape);
  std::sort(c.only_before.begin(), c.only_before.end(), shape_less);
  std::sort(c.only_after.begin(), c.only_after.end(), shape_less);

  std::vector<const ShapeComparison*> all;
  std::array<std::vector<const ShapeComparison*>, 3> classes;
  for (const auto& s : c.shapes) {
    all.push_back(&s);
    classes[static_cast<size_t>(s.size_class)].push_back(&s);
  }
  c.overall = speedup_stats(all);
  for (size_t i = 0; i < 3; ++i) c.by_class[i] = speedup_stats(classes[i]);

  for (Family f : c.families())
    for (const auto& col : options.group_by) {
      const auto& cols = spec(f).untuned;
      if (std::find(cols.begin(), cols.end(), col) == cols.end())
        throw Error(fmt::format("--group-by: '{}' is not a key column of {}", col, family_name(f)),
                    fmt::format("its key columns: {}", fmt::join(cols, ", ")));
    }
  // Groups: the key columns of --group-by, else every key column but the size. Buckets in numeric order.
  struct Bucket {
    Family family;
    std::vector<std::string> cells;
    std::string label;
    std::vector<const ShapeComparison*> members;
  };
  std::vector<Bucket> buckets;
  std::map<std::pair<Family, std::string>, size_t> bucket_of;
  for (auto& s : c.shapes) {
    std::vector<std::string> cells = group_cells(s.key);
    std::string label = group_label(s.key);
    if (!options.group_by.empty()) {
      cells.clear();
      std::vector<std::string> parts;
      for (const auto& col : options.group_by) {
        cells.push_back(s.key.get(col));
        parts.push_back(fmt::format("{}={}", col, cells.back()));
      }
      label = fmt::format("{}", fmt::join(parts, ","));
    }
    s.group = fmt::format("{}", fmt::join(cells, ","));
    auto [it, fresh] = bucket_of.try_emplace({s.key.family, s.group}, buckets.size());
    if (fresh) buckets.push_back({s.key.family, std::move(cells), std::move(label), {}});
    buckets[it->second].members.push_back(&s);
  }
  std::sort(buckets.begin(), buckets.end(), [](const Bucket& x, const Bucket& y) {
    if (x.family != y.family) return x.family < y.family;
    return compare_cells(x.cells, y.cells) < 0;
  });
  for (const auto& bucket : buckets) {
    GroupSummary g;
    g.family = bucket.family;
    g.group = fmt::format("{}", fmt::join(bucket.cells, ","));
    g.label = bucket.label;
    std::array<std::vector<const ShapeComparison*>, 3> member_classes;
    for (const auto* m : bucket.members) member_classes[static_cast<size_t>(m->size_class)].push_back(m);
    g.all = speedup_stats(bucket.members);
    for (size_t k = 0; k < 3; ++k) g.by_class[k] = speedup_stats(member_classes[k]);
    c.groups.push_back(std::move(g));
  }

  // Per model preset and TP degree, one summary per family with shapes of that model.
  for (const auto& ms : options.models) {
    bool any = false;
    for (Family f : c.families()) {
      std::vector<const ShapeComparison*> members;
      for (const auto& s : c.shapes)
        if (s.key.family == f && ms.matches(s.key)) members.push_back(&s);
      if (members.empty()) continue;
      any = true;
      c.models.push_back({ms.model, ms.tp, f, speedup_stats(members)});
    }
    if (!any) c.warnings.push_back(fmt::format("--models: no compared shape is a layer of {}", ms.label()));
  }
  for (const auto& w : c.warnings) log().warn("{}", w);
  return c;
}

}  // namespace cktune
