#include "cktune/merge/merge.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cktune/aiter/instances.hpp"
#include "cktune/core/error.hpp"
#include "cktune/formats/cells.hpp"
#include "cktune/formats/lookup.hpp"

namespace cktune {

namespace {

struct FindingKindInfo {
  FindingKind kind;
  std::string_view name;
  Severity severity;
};

constexpr FindingKindInfo kFindingKinds[] = {
    {FindingKind::Duplicate, "duplicate", Severity::Error},
    {FindingKind::InvalidUs, "invalid_us", Severity::Error},
    {FindingKind::ErrTooHigh, "error_too_high", Severity::Error},
    {FindingKind::MissingColumns, "missing_columns", Severity::Error},
    {FindingKind::UnknownFamily, "unknown_family", Severity::Error},
    {FindingKind::AmbiguousFamily, "ambiguous_family", Severity::Error},
    {FindingKind::MixedFamilies, "mixed_families", Severity::Error},
    {FindingKind::MixedKinds, "mixed_kinds", Severity::Error},
    {FindingKind::MixedDevices, "mixed_devices", Severity::Warning},
    {FindingKind::Unreachable, "unreachable", Severity::Warning},
    {FindingKind::ShortRow, "short_row", Severity::Warning},
    {FindingKind::InferredGfx, "inferred_gfx", Severity::Note},
    {FindingKind::UnknownGfx, "unknown_gfx", Severity::Warning},
    {FindingKind::UnknownKernel, "unknown_aiter_kernel", Severity::Error},
    {FindingKind::NotAiterKernel, "not_aiter_kernel", Severity::Error},
    {FindingKind::StaleKernelId, "stale_kernel_id", Severity::Warning},
    {FindingKind::UncheckedKernels, "unchecked_kernels", Severity::Note},
};

constexpr std::pair<Severity, std::string_view> kSeverities[] = {
    {Severity::Note, "note"}, {Severity::Warning, "warning"}, {Severity::Error, "error"}};

const FindingKindInfo& info(FindingKind k) {
  for (const auto& i : kFindingKinds)
    if (i.kind == k) return i;
  return kFindingKinds[0];
}

void add(MergeReport& report, FindingKind kind, std::string file, std::uint64_t line, std::uint64_t column,
         std::string message) {
  report.findings.push_back({kind, info(kind).severity, std::move(file), line, column, std::move(message)});
}

// A usable time: a finite number > 0. Anything else (AITER writes -1 for failed and inf for timed-out
// candidates; hand-edited rows carry 0.0) never wins a collision against a usable one.
std::optional<double> usable_us(std::string_view cell) {
  auto v = parse_number_cell(cell);
  if (!v || !std::isfinite(*v) || *v <= 0) return std::nullopt;
  return v;
}

bool better(std::string_view candidate_us, std::string_view current_us) {
  auto c = usable_us(candidate_us), w = usable_us(current_us);
  if (!c) return false;
  if (!w) return true;
  return *c < *w;  // equal: the current (earlier) row stays
}

std::string describe_layouts(const std::vector<Table>& inputs) {
  std::vector<std::string> parts;
  for (const auto& t : inputs)
    parts.push_back(fmt::format("{} ({} {})", t.source(), t.layout.family_text(),
                                t.layout.kind == TableKind::Tuned ? "tuned" : "untuned"));
  return fmt::format("{}", fmt::join(parts, ", "));
}

// AITER loads only its own CK / CK-tile instances (aiter-kernels.md §4): a ck/cktile row must name, for its
// gfx, the kernel AITER's list has under that kernelId; a fused-MoE row's moe_ck2stages_* names must be in
// the stage lists. cktune's own libtypes are fine on NVIDIA (sm_*) and CPU rows, whose tables are cktune's
// own, but not in a table for an AMD gfx (gfx9xx): AITER would be handed a kernel it cannot load.
void check_kernels(const Table& t, MergeReport& report) {
  const CsvTable& c = t.csv;
  const Family f = *t.layout.family;
  size_t unchecked = 0;
  std::uint64_t first_unchecked = 0;
  std::vector<bool> counted(c.rows.size(), false);  // a MoE row with two unchecked names counts once
  auto note_unchecked = [&](size_t r) {
    if (counted[r]) return;
    counted[r] = true;
    if (unchecked++ == 0) first_unchecked = c.line_of(r);
  };
  if (spec(f).is_moe) {
    aiter::for_each_moe_ck_name(c, [&](size_t r, std::string_view col, size_t ci, const std::string& name) {
      const std::string& gfx = t.keys[r].gfx;
      auto known = aiter::moe_ck_name_known(gfx, name);
      if (!known) note_unchecked(r);
      else if (!*known)
        add(report, FindingKind::UnknownKernel, c.source, c.line_of(r), c.column_of(r, ci),
            fmt::format("{} '{}' is not in AITER's fp8 blockscale CK 2-stage list for {}: AITER cannot build or "
                        "load it",
                        col, name, gfx));
    });
  } else {
    auto lib = c.column("libtype"), id = c.column("kernelId"), name = c.column("kernelName");
    if (!lib || !id || !name) return;
    for (size_t r = 0; r < c.rows.size(); ++r) {
      const std::string& libtype = c.rows[r][*lib];
      const std::string& gfx = t.keys[r].gfx;
      if (aiter::is_cktune_libtype(libtype)) {
        if (aiter::is_amd_gfx(gfx))
          add(report, FindingKind::NotAiterKernel, c.source, c.line_of(r), c.column_of(r, *lib),
              fmt::format("libtype {} ('{}') is cktune's own, not an AITER CK kernel: AITER cannot load it on {}; "
                          "keep cktune's rows out of tables meant for AITER",
                          libtype, c.rows[r][*name], gfx));
        continue;
      }
      if (libtype != "ck" && libtype != "cktile") continue;  // asm, triton, ...: AITER's, no list to check
      auto kid = parse_number_cell(c.rows[r][*id]);
      if (!kid || !std::isfinite(*kid) || *kid != std::floor(*kid) || std::fabs(*kid) > 1e9) {
        add(report, FindingKind::UnknownKernel, c.source, c.line_of(r), c.column_of(r, *id),
            fmt::format("kernelId '{}' is not a whole number", c.rows[r][*id]));
        continue;
      }
      const std::string& kname = c.rows[r][*name];
      auto check = aiter::check_gemm_kernel(f, gfx, libtype, static_cast<int>(*kid), kname);
      switch (check.verdict) {
        case aiter::GemmVerdict::Known:
          break;
        case aiter::GemmVerdict::NoList:
          note_unchecked(r);
          break;
        case aiter::GemmVerdict::StaleId:
          add(report, FindingKind::StaleKernelId, c.source, c.line_of(r), c.column_of(r, *id),
              fmt::format("{} kernelId {} names '{}' in AITER's list for {}; '{}' is id {} (an older AITER's "
                          "numbering: the runtime goes by kernelName)",
                          libtype, *kid, check.expected.empty() ? "nothing" : check.expected, gfx, kname,
                          *check.name_id));
          break;
        case aiter::GemmVerdict::Unknown:
          add(report, FindingKind::UnknownKernel, c.source, c.line_of(r), c.column_of(r, *name),
              fmt::format("{} kernelId {} '{}' is not in AITER's {} {} list for {}{}: AITER cannot build or load it",
                          libtype, *kid, kname, family_name(f), libtype, gfx,
                          check.expected.empty() ? std::string(" (no such id)")
                                                 : fmt::format(" (id {} is '{}')", *kid, check.expected)));
          break;
      }
    }
  }
  if (unchecked > 0)
    add(report, FindingKind::UncheckedKernels, c.source, first_unchecked, 0,
        fmt::format("{} row(s) name CK kernels for which cktune holds no AITER list (gfx, libtype or quant type); "
                    "not checked",
                    unchecked));
}

// Per-file findings: layout problems, invalid values, unreachable rows.
void check_one(const Table& t, const MergeOptions& options, MergeReport& report) {
  const CsvTable& c = t.csv;
  const TableLayout& l = t.layout;
  if (l.name_hint && !l.hint_missing.empty())
    add(report, FindingKind::MissingColumns, c.source, c.header_line, 0,
        fmt::format("the file name says {} but the header has no column {}", family_name(*l.name_hint),
                    fmt::join(l.hint_missing, ",")));
  if (!l.known()) {
    if (l.ambiguous())
      add(report, FindingKind::AmbiguousFamily, c.source, c.header_line, 0,
          fmt::format("the header fits {}; name the file after AITER's table or pass --family", l.family_text()));
    else
      add(report, FindingKind::UnknownFamily, c.source, c.header_line, 0,
          fmt::format("the header fits none of cktune's families ({})", fmt::join(c.header, ",")));
  }
  for (auto [row, count] : c.short_rows)
    add(report, FindingKind::ShortRow, c.source, c.line_of(row), c.column_of(row, count),
        fmt::format("{} cells, the header has {}: the missing trailing cells read as empty; cells after a missing "
                    "one may be shifted",
                    count, c.header.size()));
  if (t.gfx_inferred) {
    std::set<std::string> gfx;
    size_t unknown = 0;
    std::uint64_t first_unknown = 0;
    for (size_t r = 0; r < t.keys.size(); ++r) {
      if (t.keys[r].gfx.empty()) {
        if (unknown++ == 0) first_unknown = c.line_of(r);
      } else {
        gfx.insert(t.keys[r].gfx);
      }
    }
    add(report, FindingKind::InferredGfx, c.source, c.header_line, 0,
        fmt::format("no gfx column: gfx inferred from cu_num ({})", fmt::join(gfx, ",")));
    if (unknown > 0)
      add(report, FindingKind::UnknownGfx, c.source, first_unknown, 0,
          fmt::format("{} row(s) have a cu_num with no known arch; add a gfx column", unknown));
  }

  if (l.kind == TableKind::Tuned && l.known()) {
    const bool moe = spec(*l.family).is_moe;
    if (auto us = c.column("us")) {
      for (size_t r = 0; r < c.rows.size(); ++r) {
        const std::string& cell = c.rows[r][*us];
        if (!usable_us(cell))
          add(report, FindingKind::InvalidUs, c.source, c.line_of(r), c.column_of(r, *us),
              fmt::format("us '{}' is not a positive time; re-tune this shape or drop the row", cell));
      }
    }
    auto check_err = [&](std::string_view name, double limit, bool percent) {
      auto col = c.column(name);
      if (!col) return;
      for (size_t r = 0; r < c.rows.size(); ++r) {
        const std::string& cell = c.rows[r][*col];
        std::optional<double> v = percent ? parse_percent_cell(cell) : parse_number_cell(cell);
        if (!v && percent) v = parse_number_cell(cell);  // a bare fraction is accepted too
        if (!v || std::isnan(*v))
          add(report, FindingKind::ErrTooHigh, c.source, c.line_of(r), c.column_of(r, *col),
              fmt::format("{} '{}' is not a number", name, cell));
        else if (*v > limit)
          add(report, FindingKind::ErrTooHigh, c.source, c.line_of(r), c.column_of(r, *col),
              fmt::format("{} {} is above the limit {}", name, cell,
                          percent ? py_percent(limit) : py_float_repr(limit)));
      }
    };
    if (moe) {
      check_err("err1", options.max_moe_err, true);
      check_err("err2", options.max_moe_err, true);
    } else {
      check_err("errRatio", options.max_err_ratio, false);
    }
    check_kernels(t, report);
  }

  if (l.known() && spec(*l.family).is_moe) {
    size_t token_k = 0;
    while (token_k < t.key_names.size() && t.key_names[token_k] != "token") ++token_k;
    for (size_t r = 0; r < t.keys.size() && token_k < t.key_names.size(); ++r) {
      std::int64_t token = std::stoll(t.keys[r].values[token_k]);
      if (!moe_token_reachable(token))
        add(report, FindingKind::Unreachable, c.source, c.line_of(r), c.column_of(r, t.key_index[token_k]),
            fmt::format("token {} is never looked up: the runtime rounds it to {}", token, moe_token_key(token)));
    }
  }
}

// Group every keyed row by (family, key), in input order.
struct RowRef {
  size_t table;
  size_t row;
};
using KeyGroups = std::map<std::pair<std::string, TableKey>, std::vector<RowRef>>;

// `skip[i][r]`: row r of input i takes no part (merge --drop-invalid); empty = none skipped.
KeyGroups group_keys(const std::vector<Table>& inputs, const std::vector<std::vector<bool>>& skip = {}) {
  KeyGroups groups;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Table& t = inputs[i];
    if (!t.has_keys()) continue;
    std::string fam = t.layout.family_text();
    for (size_t r = 0; r < t.keys.size(); ++r) {
      if (i < skip.size() && r < skip[i].size() && skip[i][r]) continue;
      groups[{fam, t.keys[r]}].push_back({i, r});
    }
  }
  return groups;
}

std::string us_cell(const Table& t, size_t row) {
  auto us = t.csv.column("us");
  return us ? t.csv.rows[row][*us] : std::string();
}

// Collisions and their winners; fills report.collisions and Duplicate findings. Returns the winner per group.
std::map<std::pair<std::string, TableKey>, RowRef> resolve(const std::vector<Table>& inputs, const KeyGroups& groups,
                                                           MergeReport& report) {
  std::map<std::pair<std::string, TableKey>, RowRef> winners;
  for (const auto& [key, refs] : groups) {
    size_t w = 0;
    for (size_t i = 1; i < refs.size(); ++i)
      if (better(us_cell(inputs[refs[i].table], refs[i].row), us_cell(inputs[refs[w].table], refs[w].row))) w = i;
    winners[key] = refs[w];
    if (refs.size() < 2) continue;
    Collision col;
    col.key = key.second;
    col.winner = w;
    std::vector<std::string> places;
    for (const auto& ref : refs) {
      const Table& t = inputs[ref.table];
      col.entries.push_back({t.source(), t.csv.line_of(ref.row), us_cell(t, ref.row)});
      places.push_back(col.entries.back().us.empty()
                           ? fmt::format("{}:{}", t.source(), t.csv.line_of(ref.row))
                           : fmt::format("{}:{} (us {})", t.source(), t.csv.line_of(ref.row), col.entries.back().us));
    }
    const auto& win = col.entries[w];
    add(report, FindingKind::Duplicate, win.file, win.line, 0,
        fmt::format("key {} occurs {} times: {}; keeps {}:{}", col.key.text(), refs.size(), fmt::join(places, ", "),
                    win.file, win.line));
    report.collisions.push_back(std::move(col));
  }
  return winners;
}

void count_devices(const std::vector<Table>& inputs, MergeReport& report) {
  std::map<std::pair<std::string, std::int64_t>, size_t> devices;
  for (const auto& t : inputs)
    if (t.layout.kind == TableKind::Tuned)
      for (const auto& k : t.keys) ++devices[{k.gfx, k.cu_num}];
  for (const auto& [dev, rows] : devices) report.devices.push_back({dev.first, dev.second, rows});
  if (report.devices.size() > 1) {
    std::vector<std::string> parts;
    for (const auto& d : report.devices) parts.push_back(fmt::format("{}/{} ({} rows)", d.gfx, d.cu_num, d.rows));
    add(report, FindingKind::MixedDevices, "", 0, 0,
        fmt::format("rows for several devices: {}; they are different keys and all kept, but a runtime only "
                    "uses the rows of its own gfx and cu_num",
                    fmt::join(parts, ", ")));
  }
}

MergeReport start_report(const std::vector<Table>& inputs, const MergeOptions& options) {
  MergeReport report;
  for (const auto& t : inputs) {
    report.inputs.push_back({t.source(), t.layout.family_text(), t.layout.kind, t.csv.rows.size(), t.gfx_inferred});
    report.rows_in += t.csv.rows.size();
  }
  std::set<std::string> families;
  std::set<TableKind> kinds;
  for (const auto& t : inputs) {
    if (t.layout.known()) families.insert(t.layout.family_text());
    kinds.insert(t.layout.kind);
  }
  if (families.size() == 1) report.family = family_from_name(*families.begin());
  if (!inputs.empty()) report.kind = inputs.front().layout.kind;
  if (families.size() > 1)
    add(report, FindingKind::MixedFamilies, "", 0, 0,
        fmt::format("inputs of different families are never joined: {}", describe_layouts(inputs)));
  if (kinds.size() > 1)
    add(report, FindingKind::MixedKinds, "", 0, 0,
        fmt::format("tuned and untuned tables are never joined: {}", describe_layouts(inputs)));
  for (const auto& t : inputs) check_one(t, options, report);
  count_devices(inputs, report);
  return report;
}

// The output header: the inputs' own header when they agree on the set of columns (first input's order),
// else the family's current schema followed by any extra columns in first-seen order.
// Linear in the number of columns: a header of 100k columns must not take minutes.
std::vector<std::string> output_header(const std::vector<Table>& inputs, Family f, TableKind kind) {
  const auto& first = inputs.front().csv.header;
  std::set<std::string> first_set(first.begin(), first.end());
  bool same = std::all_of(inputs.begin(), inputs.end(), [&](const Table& t) {
    return std::set<std::string>(t.csv.header.begin(), t.csv.header.end()) == first_set;
  });
  if (same) return first;
  auto schema = kind == TableKind::Tuned ? spec(f).tuned : spec(f).untuned;
  std::vector<std::string> header(schema.begin(), schema.end());
  std::unordered_set<std::string> have(header.begin(), header.end());
  for (const auto& t : inputs)
    for (const auto& h : t.csv.header)
      if (have.insert(h).second) header.push_back(h);
  return header;
}

// Column name -> index of one input, built once: looking each output column up by a linear search made
// every output row cost columns² (a 100k-column header took 451 s).
std::unordered_map<std::string_view, size_t> column_index(const CsvTable& c) {
  std::unordered_map<std::string_view, size_t> index;
  index.reserve(c.header.size());
  for (size_t i = 0; i < c.header.size(); ++i) index.emplace(c.header[i], i);
  return index;
}

// A cell for a column the input lacks: gfx from the (inferred) key, AITER's default 0 for the MoE flags
// xbf16 and flat, empty otherwise (pandas reads it as NaN, which AITER's loader tolerates for metrics).
std::string fill_cell(const Table& t, size_t row, std::string_view column) {
  if (column == "gfx") {
    const std::string& gfx = t.keys[row].gfx;
    if (gfx.empty())
      throw InputError(t.source(), t.csv.line_of(row), 0,
                       fmt::format("cannot infer gfx for cu_num {}: the merged table needs a gfx column",
                                   t.keys[row].cu_num),
                       "add a gfx column to this table (e.g. gfx942 for MI300X, gfx950 for MI355X)");
    return gfx;
  }
  if (column == "xbf16" || column == "flat") return "0";
  return {};
}

std::int64_t as_int(const std::string& s) { return std::stoll(s); }

// AITER's tuners sort GEMM tables with N before M: (gfx, cu_num, [B], N, K, [q_dtype_w], M).
bool gemm_less(const TableKey& a, const TableKey& b, const std::vector<std::string>& names) {
  if (a.gfx != b.gfx) return a.gfx < b.gfx;
  if (a.cu_num != b.cu_num) return a.cu_num < b.cu_num;
  static constexpr std::string_view kOrder[] = {"B", "N", "K", "q_dtype_w", "M"};
  for (std::string_view col : kOrder) {
    auto it = std::find(names.begin(), names.end(), col);
    if (it == names.end()) continue;
    size_t i = static_cast<size_t>(it - names.begin());
    if (a.values[i] == b.values[i]) continue;
    if (key_cell_type(col) == KeyCellType::Integer) return as_int(a.values[i]) < as_int(b.values[i]);
    return a.values[i] < b.values[i];
  }
  return false;
}

}  // namespace

std::string_view finding_kind_name(FindingKind k) { return info(k).name; }

std::string_view severity_name(Severity s) {
  for (const auto& [sev, name] : kSeverities)
    if (sev == s) return name;
  return "error";
}

size_t MergeReport::count(Severity s) const {
  return static_cast<size_t>(
      std::count_if(findings.begin(), findings.end(), [&](const Finding& f) { return f.severity == s; }));
}

bool MergeReport::passed(bool strict) const {
  return count(Severity::Error) == 0 && (!strict || count(Severity::Warning) == 0);
}

MergeReport check_tables(const std::vector<Table>& inputs, const MergeOptions& options) {
  MergeReport report = start_report(inputs, options);
  KeyGroups groups = group_keys(inputs);
  resolve(inputs, groups, report);
  report.rows_out = groups.size();
  return report;
}

MergeResult merge_tables(const std::vector<Table>& inputs, const MergeOptions& options) {
  if (inputs.empty()) throw Error("merge: no input tables");
  for (const auto& t : inputs) {
    const TableLayout& l = t.layout;
    const std::uint64_t line = t.csv.header_line;
    // A name that promises another family than the header delivers is a mix-up, unless --family settled it.
    if (!options.family && l.name_hint && !l.hint_missing.empty())
      throw InputError(t.source(), line, 1,
                       fmt::format("the file name says {} but the header has no column {}", family_name(*l.name_hint),
                                   fmt::join(l.hint_missing, ",")),
                       "fix the header, rename the file, or pass --family");
    if (l.known()) continue;
    if (l.ambiguous())
      throw InputError(t.source(), line, 1,
                       fmt::format("the header fits {}; cannot tell which table this is", l.family_text()),
                       "name the file after AITER's table (e.g. a8w8_blockscale_tuned_gemm.csv) or pass --family");
    throw InputError(t.source(), line, 1,
                     fmt::format("the header fits none of cktune's families ({})", fmt::join(t.csv.header, ",")),
                     "merge only joins AITER GEMM and fused-MoE tables; see docs/formats.md for the schemas");
  }
  Family family = *inputs.front().layout.family;
  TableKind kind = inputs.front().layout.kind;
  for (const auto& t : inputs)
    if (*t.layout.family != family || t.layout.kind != kind)
      throw Error(fmt::format("refusing to join tables of different families or kinds: {}", describe_layouts(inputs)),
                  "merge each family separately");

  MergeResult result;
  result.report = start_report(inputs, options);
  MergeReport& report = result.report;
  // The error limits and AITER's kernel lists are --check's verdict; a merge copies such rows (AITER's own
  // tables have them) and warns.
  for (auto& f : report.findings)
    if (f.kind == FindingKind::ErrTooHigh || f.kind == FindingKind::UnknownKernel ||
        f.kind == FindingKind::NotAiterKernel)
      f.severity = Severity::Warning;

  // A row with an unusable us would be written (or silently lose a collision): refuse, or drop on request.
  std::vector<std::vector<bool>> skip(inputs.size());
  std::vector<std::string> invalid;
  const Finding* first_invalid = nullptr;
  for (auto& f : report.findings) {
    if (f.kind != FindingKind::InvalidUs) continue;
    if (!first_invalid) first_invalid = &f;
    invalid.push_back(fmt::format("{}:{}", f.file, f.line));
  }
  if (!invalid.empty() && !options.drop_invalid) {
    constexpr size_t kListed = 20;
    std::string listed = fmt::format("{}", fmt::join(invalid.begin(), invalid.begin() + static_cast<std::ptrdiff_t>(
                                                                          std::min(invalid.size(), kListed)),
                                                     ", "));
    if (invalid.size() > kListed) listed += fmt::format(" and {} more", invalid.size() - kListed);
    throw InputError(first_invalid->file, first_invalid->line, first_invalid->column,
                     fmt::format("{}; {} row(s) in all have a us that is not a finite time > 0: {}",
                                 first_invalid->message, invalid.size(), listed),
                     "re-tune those shapes or delete the rows, or pass --drop-invalid to leave them out of the output");
  }
  if (!invalid.empty()) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Table& t = inputs[i];
      auto us = t.csv.column("us");
      skip[i].assign(t.csv.rows.size(), false);
      if (!us) continue;
      for (size_t r = 0; r < t.csv.rows.size(); ++r)
        if (!usable_us(t.csv.rows[r][*us])) {
          skip[i][r] = true;
          ++report.rows_dropped;
        }
    }
    for (auto& f : report.findings)
      if (f.kind == FindingKind::InvalidUs) {
        f.severity = Severity::Warning;
        f.message += " (dropped: --drop-invalid)";
      }
  }
  KeyGroups groups = group_keys(inputs, skip);
  auto winners = resolve(inputs, groups, report);

  // Order: AITER's sort for GEMM tables, else (MoE, --keep-order) the order in which keys first appear.
  std::vector<std::pair<std::string, TableKey>> order;
  order.reserve(groups.size());
  std::map<std::pair<size_t, size_t>, const std::pair<std::string, TableKey>*> first_seen;
  for (const auto& [key, refs] : groups) first_seen[{refs.front().table, refs.front().row}] = &key;
  for (const auto& [pos, key] : first_seen) order.push_back(*key);
  const auto& key_names = inputs.front().key_names;
  if (!spec(family).is_moe && !options.keep_order)
    std::stable_sort(order.begin(), order.end(),
                     [&](const auto& a, const auto& b) { return gemm_less(a.second, b.second, key_names); });

  CsvTable& out = result.table;
  out.header = output_header(inputs, family, kind);
  out.rows.reserve(order.size());
  // Per input: the source column of every output column (npos: the input lacks it).
  constexpr size_t kAbsent = static_cast<size_t>(-1);
  std::vector<std::vector<size_t>> source_col(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto index = column_index(inputs[i].csv);
    source_col[i].reserve(out.header.size());
    for (const auto& col : out.header) {
      auto it = index.find(col);
      source_col[i].push_back(it == index.end() ? kAbsent : it->second);
    }
  }
  for (const auto& key : order) {
    RowRef ref = winners.at(key);
    const Table& t = inputs[ref.table];
    std::vector<std::string> row;
    row.reserve(out.header.size());
    for (size_t o = 0; o < out.header.size(); ++o) {
      size_t idx = source_col[ref.table][o];
      row.push_back(idx != kAbsent ? t.csv.rows[ref.row][idx] : fill_cell(t, ref.row, out.header[o]));
    }
    out.rows.push_back(std::move(row));
    out.row_lines.push_back(0);
  }
  result.report.rows_out = out.rows.size();
  return result;
}

}  // namespace cktune
