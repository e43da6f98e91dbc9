#include "cktune/core/names.hpp"
#include "cktune/results/results.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <ctime>
#include <filesystem>
#include <utility>

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/core/io.hpp"
#include "cktune/formats/cells.hpp"

namespace cktune {

namespace {

constexpr EnumName<ResultRole> kRoles[] = {
    {ResultRole::Dispatch, "dispatch"},
    {ResultRole::Baseline, "baseline"},
    {ResultRole::Candidate, "candidate"},
    {ResultRole::Against, "against"},
};

constexpr EnumName<ResultSource> kSources[] = {
    {ResultSource::Tuned, "tuned"},
    {ResultSource::Default, "default"},
    {ResultSource::None, "-"},
};

// Columns before the key cells and after them, in written order.
constexpr std::string_view kLeading[] = {"family", "gfx", "cu_num"};
constexpr std::string_view kTrailing[] = {"role",  "source",  "backend",  "libtype",  "kernelId", "kernelName",
                                          "splitK", "us",     "us_min",   "us_p10",   "us_p90",   "tflops",
                                          "bw",     "errRatio", "verdict", "reason",  "device",   "protocol",
                                          "seed",   "timestamp", "cktune_version", "parts",   "uuid"};

// Free text must not break the plain CSV (no quoting in AITER-style files).
std::string clean_text(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c == ',') c = ';';
    else if (c == '"') c = '\'';
    else if (c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

std::vector<std::string> row_cells(const ResultRow& r) {
  std::vector<std::string> cells;
  cells.reserve(3 + r.key.cells.size() + std::size(kTrailing));
  cells.push_back(std::string(family_name(r.key.family)));
  cells.push_back(clean_text(r.gfx));
  cells.push_back(format_int(r.cu_num));
  for (const auto& c : r.key.cells) cells.push_back(clean_text(c));
  cells.push_back(std::string(to_string(r.role)));
  cells.push_back(std::string(to_string(r.source)));
  cells.push_back(clean_text(r.backend));
  cells.push_back(clean_text(r.libtype));
  cells.push_back(format_int(r.kernel_id));
  cells.push_back(clean_text(r.kernel_name));
  cells.push_back(format_int(r.split_k));
  cells.push_back(format_us(r.us));
  cells.push_back(format_us(r.us_min));
  cells.push_back(format_us(r.us_p10));
  cells.push_back(format_us(r.us_p90));
  cells.push_back(format_tflops(r.tflops));
  cells.push_back(format_bw(r.bw));
  cells.push_back(format_err_ratio(r.err_ratio));
  cells.push_back(r.verdict ? std::string(to_string(*r.verdict)) : std::string());
  cells.push_back(clean_text(r.reason));
  cells.push_back(clean_text(r.device));
  cells.push_back(clean_text(r.protocol));
  cells.push_back(fmt::format("{}", r.seed));
  cells.push_back(clean_text(r.timestamp));
  cells.push_back(clean_text(r.version));
  cells.push_back(clean_text(r.parts));
  cells.push_back(clean_text(r.uuid));
  return cells;
}

// Reads one row's cells by column name; every failure names file:line:col.
class RowReader {
 public:
  RowReader(const CsvTable& t, size_t row) : t_(t), row_(row) {}

  std::optional<size_t> index(std::string_view name) const { return t_.column(name); }

  std::string text(std::string_view name, std::string fallback = {}) const {
    auto i = t_.column(name);
    return i ? t_.rows[row_][*i] : fallback;
  }

  [[noreturn]] void fail(std::string_view name, const std::string& message, std::string hint = {}) const {
    auto i = t_.column(name);
    throw InputError(t_.source, t_.line_of(row_), i ? t_.column_of(row_, *i) : 0, message, std::move(hint));
  }

  double number(std::string_view name, double fallback) const {
    auto i = t_.column(name);
    if (!i) return fallback;
    const std::string& cell = t_.rows[row_][*i];
    if (cell.empty()) return fallback;
    auto v = parse_number_cell(cell);
    if (!v) fail(name, fmt::format("'{}' = '{}' is not a number", name, cell), "write a decimal number, inf or nan");
    return *v;
  }

  template <typename Int>
  Int integer(std::string_view name, Int fallback) const {
    auto i = t_.column(name);
    if (!i) return fallback;
    const std::string& cell = t_.rows[row_][*i];
    if (cell.empty()) return fallback;
    Int v{};
    auto [p, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
    if (ec != std::errc() || p != cell.data() + cell.size()) {
      // pandas may have written an integer column as "3.0".
      auto d = parse_number_cell(cell);
      // In range only: converting an out-of-range double to an integer is undefined (found by fuzz_csv).
      if (d && std::isfinite(*d) && *d == std::floor(*d) &&
          *d >= static_cast<double>(std::numeric_limits<Int>::lowest()) &&
          *d < std::ldexp(1.0, std::numeric_limits<Int>::digits))
        return static_cast<Int>(*d);
      fail(name, fmt::format("'{}' = '{}' is not an integer", name, cell));
    }
    return v;
  }

 private:
  const CsvTable& t_;
  size_t row_;
};

bool is_tag_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

std::tm utc(std::chrono::system_clock::time_point t) {
  std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  return tm;
}

// The one value all rows share, or "(mixed)" / "" so the text header never misleads.
template <typename Get>
std::string common_value(std::span<const ResultRow> rows, Get get) {
  if (rows.empty()) return {};
  std::string first = get(rows.front());
  for (const auto& r : rows)
    if (get(r) != first) return "(mixed)";
  return first;
}

std::string fmt_us_text(double us) {
  if (std::isinf(us)) return "timeout";
  if (!(us > 0)) return "-";
  return fmt::format("{:.4f}", us);
}

}  // namespace

std::string_view to_string(ResultRole role) {
  return enum_text(kRoles, role, "?");
}

std::optional<ResultRole> result_role_from_string(std::string_view text) {
  return enum_from_text(kRoles, text);
}

std::string_view to_string(ResultSource source) {
  return enum_text(kSources, source, "?");
}

std::optional<ResultSource> result_source_from_string(std::string_view text) {
  if (auto v = enum_from_text(kSources, text)) return v;
  if (text.empty()) return ResultSource::None;
  return std::nullopt;
}

bool ResultRow::measured() const { return std::isfinite(us) && us > 0; }

std::vector<std::string> results_header(Family family) {
  std::vector<std::string> h;
  for (auto c : kLeading) h.emplace_back(c);
  for (auto c : spec(family).untuned) h.emplace_back(c);
  for (auto c : kTrailing) h.emplace_back(c);
  return h;
}

bool is_results_table(const CsvTable& table) {
  // A hand-made file with only family, key columns and us is still a results file (read leniently).
  return table.column("family") && table.column("us");
}

CsvTable results_table(Family family, std::span<const ResultRow> rows) {
  CsvTable t;
  t.source = "<results>";
  t.header = results_header(family);
  size_t want = spec(family).untuned.size();
  for (size_t i = 0; i < rows.size(); ++i) {
    const ResultRow& r = rows[i];
    if (r.key.family != family)
      throw Error(fmt::format("results row {} is of family {}, the file is {}", i + 1, family_name(r.key.family),
                              family_name(family)),
                  "write one results file per family");
    if (r.key.cells.size() != want)
      throw Error(fmt::format("results row {} ({}) has {} key cells, family {} needs {}", i + 1, r.key.to_string(),
                              r.key.cells.size(), family_name(family), want));
    t.rows.push_back(row_cells(r));
  }
  return t;
}

std::string render_results(Family family, std::span<const ResultRow> rows) {
  return render_csv(results_table(family, rows));
}

void write_results(const std::string& path, Family family, std::span<const ResultRow> rows) {
  CsvTable t = results_table(family, rows);
  t.source = path;
  write_csv_atomic(t, path);
}

void write_results(const std::string& path, std::span<const ResultRow> rows) {
  if (rows.empty()) throw Error(fmt::format("cannot write {}: no result rows and no family given", path));
  write_results(path, rows.front().key.family, rows);
}

ResultsFile parse_results(const CsvTable& table) {
  ResultsFile out;
  out.path = table.source;
  auto family_col = table.column("family");
  if (!family_col)
    throw InputError(table.source, table.header_line, 1, "not a cktune results file: no 'family' column",
                     "results files are written by `cktune bench` / `cktune tune`");
  if (!table.column("us"))
    throw InputError(table.source, table.header_line, 1, "results file has no 'us' column");
  if (table.rows.empty()) {
    // An empty file still has a family when it can be told from the name; else keep the default.
    if (auto f = family_from_file_name(table.source)) out.family = *f;
    return out;
  }

  std::optional<Family> family;
  for (size_t r = 0; r < table.rows.size(); ++r) {
    RowReader rd(table, r);
    const std::string& fname = table.rows[r][*family_col];
    auto f = family_from_name(fname);
    if (!f) rd.fail("family", fmt::format("unknown family '{}'", fname), "families: a8w8, a8w8_blockscale, ...");
    if (!family) {
      family = *f;
      for (auto col : spec(*f).untuned)
        if (!table.column(col))
          throw InputError(table.source, table.header_line, 1,
                           fmt::format("results file of family {} has no key column '{}'", fname, col));
    } else if (*f != *family) {
      rd.fail("family", fmt::format("family '{}' in a results file of family '{}'", fname, family_name(*family)),
              "a results file holds one family; split it");
    }

    ResultRow row;
    row.key.family = *f;
    for (auto col : spec(*f).untuned) {
      std::string cell = rd.text(col);
      if (cell.empty()) rd.fail(col, fmt::format("empty key cell '{}'", col));
      row.key.cells.push_back(canonical_cell(col, cell));
    }
    row.gfx = rd.text("gfx");
    row.cu_num = rd.integer<long>("cu_num", 0);
    std::string role = rd.text("role", "dispatch");
    auto ro = result_role_from_string(role);
    if (!ro) rd.fail("role", fmt::format("unknown role '{}'", role), "roles: dispatch, baseline, candidate, against");
    row.role = *ro;
    std::string source = rd.text("source", "-");
    auto so = result_source_from_string(source);
    if (!so) rd.fail("source", fmt::format("unknown source '{}'", source), "sources: tuned, default, -");
    row.source = *so;
    row.backend = rd.text("backend");
    row.libtype = rd.text("libtype");
    row.kernel_id = rd.integer<std::int64_t>("kernelId", -1);
    row.kernel_name = rd.text("kernelName");
    row.split_k = rd.integer<int>("splitK", 0);
    if (rd.text("us").empty()) rd.fail("us", "empty 'us' cell", "write -1 for a shape that was not measured");
    row.us = rd.number("us", -1);
    row.us_min = rd.number("us_min", -1);
    row.us_p10 = rd.number("us_p10", -1);
    row.us_p90 = rd.number("us_p90", -1);
    row.tflops = rd.number("tflops", 0);
    row.bw = rd.number("bw", 0);
    row.err_ratio = rd.number("errRatio", 0);
    if (std::string v = rd.text("verdict"); !v.empty()) {
      row.verdict = verdict_from_string(v);
      if (!row.verdict)
        rd.fail("verdict", fmt::format("unknown verdict '{}'", v),
                "verdicts: passed, incorrect, not_supported, failed, timed_out, faulted, skipped");
    }
    row.reason = rd.text("reason");
    row.device = rd.text("device");
    row.protocol = rd.text("protocol");
    row.seed = rd.integer<std::uint64_t>("seed", 0);
    row.timestamp = rd.text("timestamp");
    row.version = rd.text("cktune_version");
    row.parts = rd.text("parts");
    row.uuid = rd.text("uuid");  // absent from files written before 2026-11-30
    out.rows.push_back(std::move(row));
  }
  out.family = *family;
  return out;
}

ResultsFile read_results(const std::string& path) {
  ResultsFile f = parse_results(read_csv(path));
  f.path = path;
  return f;
}

bool same_slot(const ResultRow& a, const ResultRow& b) {
  return a.key == b.key && a.gfx == b.gfx && a.cu_num == b.cu_num && a.role == b.role && a.backend == b.backend &&
         a.kernel_id == b.kernel_id && a.kernel_name == b.kernel_name && a.split_k == b.split_k;
}

void append_results(const std::string& path, Family family, std::span<const ResultRow> rows) {
  ResultsWriter w(path, family, /*resume=*/true);
  w.add(rows);
}

ResultsWriter::ResultsWriter(std::string path, Family family, bool resume) : path_(std::move(path)), family_(family) {
  if (resume && file_exists(path_)) {
    ResultsFile existing = read_results(path_);
    if (!existing.rows.empty() && existing.family != family_)
      throw Error(fmt::format("{} holds {} results, cannot add {} rows", path_, family_name(existing.family),
                              family_name(family_)),
                  "write each family to its own results file");
    rows_ = std::move(existing.rows);
  }
}

void ResultsWriter::merge(std::span<const ResultRow> rows) {
  for (const auto& r : rows) {
    if (r.key.family != family_)
      throw Error(fmt::format("cannot add a {} row to the {} results file {}", family_name(r.key.family),
                              family_name(family_), path_));
    auto it = std::find_if(rows_.begin(), rows_.end(), [&](const ResultRow& o) { return same_slot(o, r); });
    if (it != rows_.end()) *it = r;
    else rows_.push_back(r);
  }
}

void ResultsWriter::add(std::span<const ResultRow> rows) {
  std::vector<ResultRow> before = rows_;
  merge(rows);
  try {
    write_results(path_, family_, rows_);
  } catch (...) {
    rows_ = std::move(before);  // keep memory equal to what is on disk
    throw;
  }
}

std::string format_timestamp(std::chrono::system_clock::time_point t) {
  std::tm tm = utc(t);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                     tm.tm_min, tm.tm_sec);
}

std::string bench_log_path(const std::string& dir, Family family, std::string_view tag,
                           std::chrono::system_clock::time_point time) {
  if (tag.empty() || !std::all_of(tag.begin(), tag.end(), is_tag_char))
    throw Error(fmt::format("invalid --tag '{}'", tag), "use letters, digits, '-' or '_' (e.g. before, after)");
  std::tm tm = utc(time);
  std::string name = fmt::format("{}_bench_{}_{:04}{:02}{:02}_{:02}{:02}{:02}.log", family_name(family), tag,
                                 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return (std::filesystem::path(dir) / name).string();
}

std::string render_results_text(std::span<const ResultRow> rows) {
  std::string out;
  auto families = common_value(rows, [](const ResultRow& r) { return std::string(family_name(r.key.family)); });
  out += fmt::format("family:   {}\n", families.empty() ? "-" : families);
  out += fmt::format("device:   {}\n", common_value(rows, [](const ResultRow& r) { return r.device; }));
  out += fmt::format("gfx:      {}  cu_num: {}\n", common_value(rows, [](const ResultRow& r) { return r.gfx; }),
                     common_value(rows, [](const ResultRow& r) { return std::to_string(r.cu_num); }));
  out += fmt::format("protocol: {}\n", common_value(rows, [](const ResultRow& r) { return r.protocol; }));
  out += fmt::format("cktune:   {}\n", common_value(rows, [](const ResultRow& r) { return r.version; }));
  out += fmt::format("rows:     {}\n\n", rows.size());

  // Columns: key cells (per family), then fixed ones. Widths from the content so columns line up.
  std::vector<std::string> head;
  if (!rows.empty())
    for (auto c : spec(rows.front().key.family).untuned) head.emplace_back(c);
  size_t nkey = head.size();
  for (std::string_view c : {"role", "source", "backend", "kernel", "split", "us", "us_min", "us_p90", "TFLOPS",
                             "GB/s", "errRatio", "verdict", "reason"})
    head.emplace_back(c);
  std::vector<std::vector<std::string>> table;
  for (const auto& r : rows) {
    std::vector<std::string> line;
    for (size_t i = 0; i < nkey; ++i) line.push_back(i < r.key.cells.size() ? r.key.cells[i] : "");
    line.emplace_back(to_string(r.role));
    line.emplace_back(to_string(r.source));
    line.push_back(r.backend.empty() ? "-" : r.backend);
    line.push_back(r.kernel_name.empty() ? "-" : r.kernel_name);
    line.push_back(std::to_string(r.split_k));
    line.push_back(fmt_us_text(r.us));
    line.push_back(fmt_us_text(r.us_min));
    line.push_back(fmt_us_text(r.us_p90));
    line.push_back(r.measured() ? fmt::format("{:.2f}", r.tflops) : "-");
    line.push_back(r.measured() ? fmt::format("{:.2f}", r.bw) : "-");
    line.push_back(fmt::format("{:.4f}", r.err_ratio));
    line.push_back(r.verdict ? std::string(to_string(*r.verdict)) : "-");
    line.push_back(r.reason);
    table.push_back(std::move(line));
  }
  std::vector<size_t> width(head.size());
  for (size_t c = 0; c < head.size(); ++c) {
    width[c] = head[c].size();
    for (const auto& l : table) width[c] = std::max(width[c], l[c].size());
  }
  // Numbers right-aligned, text left-aligned; the last column (reason) is not padded.
  auto numeric = [&](size_t c) { return c < nkey || (c >= nkey + 4 && c <= nkey + 10); };
  auto emit = [&](const std::vector<std::string>& l) {
    std::string s;
    for (size_t c = 0; c < l.size(); ++c) {
      if (c) s += "  ";
      if (c + 1 == l.size()) s += l[c];
      else if (numeric(c)) s += fmt::format("{:>{}}", l[c], width[c]);
      else s += fmt::format("{:<{}}", l[c], width[c]);
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out += s + "\n";
  };
  emit(head);
  std::vector<std::string> rule;
  for (size_t c = 0; c < head.size(); ++c) rule.push_back(std::string(c + 1 == head.size() ? head[c].size() : width[c], '-'));
  emit(rule);
  for (const auto& l : table) emit(l);
  return out;
}

}  // namespace cktune
