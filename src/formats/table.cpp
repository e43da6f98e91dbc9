#include "cktune/formats/table.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cktune/core/error.hpp"
#include "cktune/formats/tuned_table.hpp"

namespace cktune {

namespace {

constexpr std::string_view kIntegerColumns[] = {"B", "M", "N", "K", "token", "model_dim", "inter_dim", "expert", "topk"};
constexpr std::string_view kBooleanColumns[] = {"use_g1u1", "doweight_stage1"};
// Columns that may be absent or present without making a header fit a family any worse: `_tag` is
// AITER's provenance column in older and model tables; untuned shape lists may carry gfx/cu_num.
constexpr std::string_view kNeutralColumns[] = {"_tag"};

bool contains(const std::vector<std::string>& v, std::string_view s) { return std::find(v.begin(), v.end(), s) != v.end(); }

template <class Range>
bool range_contains(const Range& r, std::string_view s) {
  return std::find(std::begin(r), std::end(r), s) != std::end(r);
}

std::vector<std::string_view> required_columns(Family f, TableKind kind) {
  std::vector<std::string_view> req;
  if (kind == TableKind::Tuned) req.push_back("cu_num");
  for (auto c : key_columns(f)) req.push_back(c);
  if (kind == TableKind::Tuned) req.push_back("us");
  return req;
}

std::vector<std::string> missing_required(const std::vector<std::string>& header, Family f, TableKind kind) {
  std::vector<std::string> out;
  for (auto c : required_columns(f, kind))
    if (!contains(header, c)) out.emplace_back(c);
  return out;
}

// How far the header is from the family's current schema: extra plus missing columns.
size_t schema_distance(const std::vector<std::string>& header, Family f, TableKind kind) {
  auto schema = kind == TableKind::Tuned ? spec(f).tuned : spec(f).untuned;
  size_t d = 0;
  for (const auto& h : header) {
    bool neutral = range_contains(kNeutralColumns, h) || (kind == TableKind::Untuned && (h == "gfx" || h == "cu_num"));
    if (!neutral && !range_contains(schema, h)) ++d;
  }
  for (auto c : schema)
    if (!contains(header, c)) ++d;
  return d;
}

void fill_schema_diff(TableLayout& layout, const std::vector<std::string>& header) {
  auto schema = layout.kind == TableKind::Tuned ? spec(*layout.family).tuned : spec(*layout.family).untuned;
  for (auto c : schema)
    if (!contains(header, c)) layout.missing.emplace_back(c);
  for (const auto& h : header)
    if (!range_contains(schema, h)) layout.extra.push_back(h);
}

// A padded short row is fine when the file still gave every key cell and `us`; otherwise the row is broken.
void check_short_rows(const Table& t, std::optional<Family> key_family) {
  const CsvTable& c = t.csv;
  if (c.short_rows.empty()) return;
  std::vector<std::string_view> needed;
  if (key_family) needed = required_columns(*key_family, t.layout.kind);
  if (t.layout.has_gfx) needed.push_back("gfx");
  for (auto [row, count] : c.short_rows) {
    for (auto name : needed) {
      size_t col = *c.column(name);
      if (col >= count)
        throw InputError(c.source, c.line_of(row), c.column_of(row, col),
                         fmt::format("short row: {} cells, the header has {}; column {} is missing", count,
                                     c.header.size(), name),
                         fmt::format("every row needs one cell per header column ({})", fmt::join(c.header, ",")));
    }
  }
}

}  // namespace

std::string TableLayout::family_text() const {
  if (family) return std::string(family_name(*family));
  if (candidates.empty()) return "unknown";
  std::vector<std::string_view> names;
  for (Family f : candidates) names.push_back(family_name(f));
  return fmt::format("{}", fmt::join(names, "|"));
}

TableLayout detect_layout(const std::vector<std::string>& header, std::string_view file_name,
                          std::optional<Family> override_family, std::uint64_t header_line) {
  TableLayout layout;
  layout.kind = contains(header, "us") ? TableKind::Tuned : TableKind::Untuned;
  layout.has_gfx = contains(header, "gfx");
  layout.has_cu_num = contains(header, "cu_num");
  layout.name_hint = family_from_file_name(file_name);
  if (layout.name_hint) layout.hint_missing = missing_required(header, *layout.name_hint, layout.kind);

  if (override_family) {
    auto miss = missing_required(header, *override_family, layout.kind);
    if (!miss.empty())
      throw InputError(std::string(file_name), header_line, 1,
                       fmt::format("the header does not fit family {}: no column {}", family_name(*override_family),
                                   fmt::join(miss, ",")),
                       "check --family or the file");
    layout.family = override_family;
    layout.candidates = {*override_family};
    fill_schema_diff(layout, header);
    return layout;
  }

  size_t best = std::numeric_limits<size_t>::max();
  for (Family f : kAllFamilies) {
    if (!missing_required(header, f, layout.kind).empty()) continue;
    size_t d = schema_distance(header, f, layout.kind);
    if (d < best) {
      best = d;
      layout.candidates.clear();
    }
    if (d == best) layout.candidates.push_back(f);
  }
  // The file name decides when its family fits at all: AITER picks tables by name, so a model table named
  // a8w8_blockscale_bpreshuffle_untuned_gemm_*.csv with an extra q_dtype_w column is still that family.
  if (layout.name_hint && layout.hint_missing.empty()) {
    layout.family = layout.name_hint;
    if (std::find(layout.candidates.begin(), layout.candidates.end(), *layout.name_hint) == layout.candidates.end())
      layout.candidates.insert(layout.candidates.begin(), *layout.name_hint);
  } else if (layout.candidates.size() == 1) {
    layout.family = layout.candidates.front();
  }
  if (layout.family) fill_schema_diff(layout, header);
  return layout;
}

KeyCellType key_cell_type(std::string_view column) {
  if (range_contains(kIntegerColumns, column)) return KeyCellType::Integer;
  if (range_contains(kBooleanColumns, column)) return KeyCellType::Boolean;
  return KeyCellType::Text;
}

std::optional<std::int64_t> parse_uint_cell(std::string_view cell) {
  if (cell.empty() || cell.front() < '0' || cell.front() > '9') return std::nullopt;
  std::int64_t v = 0;
  auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
  if (ec != std::errc() || ptr != cell.data() + cell.size()) return std::nullopt;
  return v;
}

std::optional<std::string> canonical_key_cell(KeyCellType type, std::string_view cell) {
  switch (type) {
    case KeyCellType::Integer:
      if (auto v = parse_uint_cell(cell)) return std::to_string(*v);
      return std::nullopt;
    case KeyCellType::Boolean:
      if (cell == "1" || cell == "True" || cell == "true" || cell == "TRUE") return "1";
      if (cell == "0" || cell == "False" || cell == "false" || cell == "FALSE") return "0";
      return std::nullopt;
    case KeyCellType::Text:
      if (cell.empty()) return std::nullopt;
      return std::string(cell);
  }
  return std::nullopt;
}

namespace {

bool ident_chars(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// What a key cell of `column` must look like; "" when `cell` is fine.
std::string key_cell_problem(std::string_view column, std::string_view cell) {
  auto prefixed = [&](std::string_view prefix) {
    return cell.starts_with(prefix) && ident_chars(cell.substr(prefix.size()));
  };
  if (column == "gfx") {
    std::string_view id = cell.substr(0, cell.find(':'));
    // AMD archs (gfx942), NVIDIA ones (sm_90) and the CPU backend's "cpu" are all written here.
    return ident_chars(id) ? "" : "an arch name such as gfx942 or gfx950";
  }
  if (column == "cu_num") {
    auto v = parse_uint_cell(cell);
    return v && *v >= 1 && *v <= kMaxCuNum ? "" : fmt::format("a compute-unit count in 1..{}, e.g. 304 or 256", kMaxCuNum);
  }
  switch (key_cell_type(column)) {
    case KeyCellType::Integer: {
      auto v = parse_uint_cell(cell);
      return v && *v >= 1 && *v <= kMaxKeySize ? "" : fmt::format("a whole number in 1..{} such as 4096", kMaxKeySize);
    }
    case KeyCellType::Boolean:
      return canonical_key_cell(KeyCellType::Boolean, cell) ? "" : "1/0 or True/False";
    case KeyCellType::Text:
      break;
  }
  if (column == "dtype" || column == "q_dtype_a" || column == "q_dtype_w")
    return prefixed("torch.") ? "" : "a torch dtype such as torch.bfloat16 or torch.float8_e4m3fnuz";
  if (column == "act_type") return prefixed("ActivationType.") ? "" : "an activation such as ActivationType.Silu";
  if (column == "q_type") return prefixed("QuantType.") ? "" : "a quantisation such as QuantType.per_1x128";
  return cell.empty() ? "a non-empty value" : "";
}

}  // namespace

void validate_key_cells(const CsvTable& csv, Family family) {
  struct Checked {
    std::string_view name;
    size_t index;
  };
  std::vector<Checked> columns;
  auto add = [&](std::string_view name, bool required) {
    if (auto col = csv.column(name)) {
      columns.push_back({name, *col});
    } else if (required) {
      throw InputError(csv.source, csv.header_line, 0,
                       fmt::format("no column {}: the key of family {} needs it", name, family_name(family)),
                       fmt::format("the header must hold {}", fmt::join(key_columns(family), ",")));
    }
  };
  add("gfx", false);
  add("cu_num", false);
  for (auto name : key_columns(family)) add(name, true);
  for (size_t r = 0; r < csv.rows.size(); ++r) {
    for (const auto& [name, index] : columns) {
      const std::string& cell = csv.rows[r][index];
      std::string want = key_cell_problem(name, cell);
      if (want.empty()) continue;
      throw InputError(csv.source, csv.line_of(r), csv.column_of(r, index),
                       fmt::format("key column {} has {}", name,
                                   cell.empty() ? std::string("an empty cell") : fmt::format("the value '{}'", cell)),
                       fmt::format("write {} in column {}, or remove the row", want, name));
    }
  }
}

std::string TableKey::text() const {
  std::string out;
  if (!gfx.empty()) out += gfx + ",";
  if (cu_num >= 0) out += std::to_string(cu_num) + ",";
  out += fmt::format("{}", fmt::join(values, ","));
  return out;
}

Table make_table(CsvTable csv, std::optional<Family> override_family) {
  Table t;
  t.layout = detect_layout(csv.header, csv.source, override_family, csv.header_line);
  t.csv = std::move(csv);
  const CsvTable& c = t.csv;

  // Keys need the family's key columns; an ambiguous layout still has them when all candidates agree.
  std::optional<Family> key_family = t.layout.family;
  if (!key_family && !t.layout.candidates.empty()) {
    auto first = key_columns(t.layout.candidates.front());
    bool agree = std::all_of(t.layout.candidates.begin(), t.layout.candidates.end(), [&](Family f) {
      auto k = key_columns(f);
      return std::equal(k.begin(), k.end(), first.begin(), first.end());
    });
    if (agree) key_family = t.layout.candidates.front();
  }
  check_short_rows(t, key_family);
  if (!key_family) return t;

  for (auto name : key_columns(*key_family)) {
    t.key_names.emplace_back(name);
    t.key_index.push_back(*c.column(name));
  }
  std::optional<size_t> gfx_col = c.column("gfx");
  std::optional<size_t> cu_col = c.column("cu_num");
  t.gfx_inferred = !gfx_col && cu_col;
  validate_key_cells(c, *key_family);
  t.keys.reserve(c.rows.size());
  for (size_t r = 0; r < c.rows.size(); ++r) {
    const auto& row = c.rows[r];
    TableKey key;
    if (cu_col) {
      auto v = parse_uint_cell(row[*cu_col]);
      if (!v || *v == 0)
        throw InputError(c.source, c.line_of(r), c.column_of(r, *cu_col),
                         fmt::format("cu_num '{}' is not a positive integer", row[*cu_col]),
                         "cu_num is the GPU's compute-unit count, e.g. 304 (MI300X) or 256 (MI355X)");
      key.cu_num = *v;
    }
    if (gfx_col && !row[*gfx_col].empty()) {
      std::string_view g = row[*gfx_col];
      key.gfx = std::string(g.substr(0, g.find(':')));  // "gfx942:sramecc+:xnack-" -> "gfx942"
    } else if (cu_col) {
      key.gfx = std::string(legacy_gfx_for_cu_num(key.cu_num));
    }
    key.values.reserve(t.key_index.size());
    for (size_t k = 0; k < t.key_index.size(); ++k) {
      size_t col = t.key_index[k];
      KeyCellType type = key_cell_type(t.key_names[k]);
      auto canon = canonical_key_cell(type, row[col]);
      if (!canon) {
        std::string want = type == KeyCellType::Integer ? "a whole number >= 0 such as 4096"
                           : type == KeyCellType::Boolean ? "1/0 or True/False"
                                                          : "a non-empty value";
        throw InputError(c.source, c.line_of(r), c.column_of(r, col),
                         fmt::format("key column {} has {} '{}'", t.key_names[k],
                                     row[col].empty() ? "an empty cell" : "the value", row[col]),
                         fmt::format("write {} in column {}", want, t.key_names[k]));
      }
      key.values.push_back(std::move(*canon));
    }
    t.keys.push_back(std::move(key));
  }
  return t;
}

Table read_table(const std::string& path, std::optional<Family> override_family) {
  CsvOptions options;
  options.min_row_cells = 1;  // make_table decides which short rows are acceptable
  Table t = make_table(read_csv(path, options), override_family);
  // A header that two families fit (a8w8_blockscale and its bpreshuffle twin share their columns), in a file whose
  // name names neither (`tune -o out.csv`): the provenance sidecar that tune wrote beside the table names the family
  // it tuned. It decides only among the families the header fits.
  if (t.layout.ambiguous()) {
    const auto origin = read_table_origin(path);
    const auto& fits = t.layout.candidates;
    if (origin && origin->family && std::find(fits.begin(), fits.end(), *origin->family) != fits.end()) {
      t = make_table(std::move(t.csv), origin->family);
      t.layout.family_from_provenance = true;
    }
  }
  return t;
}

}  // namespace cktune
