#include "cktune/core/names.hpp"
#include "cktune/capture/untuned.hpp"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/formats/table.hpp"

namespace cktune::capture {

namespace {

using MSweepName = EnumName<MSweep>;
constexpr MSweepName kMSweepNames[] = {
    {MSweep::Observed, "observed"},
    {MSweep::Pow2, "pow2"},
    {MSweep::Vllm, "vllm"},
};

constexpr std::int64_t kMaxPow2Size = 32768;

std::vector<std::string_view> split_commas(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    size_t comma = s.find(',', start);
    out.push_back(s.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

std::optional<std::int64_t> as_int(std::string_view s) {
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// Integers compare as numbers ("896" < "1280"), anything else as text; a number sorts before text.
int compare_cells(std::string_view a, std::string_view b) {
  auto ia = as_int(a), ib = as_int(b);
  if (ia && ib) return *ia < *ib ? -1 : (*ia > *ib ? 1 : 0);
  if (ia != ib && (ia || ib)) return ia ? -1 : 1;
  return a.compare(b) < 0 ? -1 : (a == b ? 0 : 1);
}

}  // namespace

std::string_view m_sweep_name(MSweep s) {
  return enum_text(kMSweepNames, s, "?");
}

std::optional<MSweep> m_sweep_from_name(std::string_view name) {
  return enum_from_text(kMSweepNames, name);
}

std::vector<std::int64_t> m_sweep_sizes(MSweep s) {
  std::vector<std::int64_t> out;
  switch (s) {
    case MSweep::Observed:
      break;
    case MSweep::Pow2:
      for (std::int64_t m = 1; m <= kMaxPow2Size; m *= 2) out.push_back(m);
      break;
    case MSweep::Vllm:
      // vLLM's default cudagraph capture sizes: [1, 2, 4] + range(8, 513, 8); 1024 and 8192 add typical
      // prefill chunk sizes, which run eagerly and also hit the GEMM.
      out = {1, 2, 4};
      for (std::int64_t m = 8; m <= 512; m += 8) out.push_back(m);
      out.push_back(1024);
      out.push_back(8192);
      break;
  }
  return out;
}

std::vector<std::int64_t> token_sweep_sizes() { return m_sweep_sizes(MSweep::Pow2); }

size_t UntunedRows::row_count() const {
  size_t n = 0;
  for (const auto& [key, sizes] : keys) n += sizes.size();
  return n;
}

CsvTable build_untuned_table(Family f, const UntunedRows& rows) {
  const FamilySpec& s = spec(f);
  CsvTable table;
  table.source = std::string(s.untuned_file);
  for (auto col : s.untuned) table.header.emplace_back(col);
  validate_key_cells(table, f);  // the shapes --append keeps must be as valid as the ones it adds
  const size_t size_col = static_cast<size_t>(
      std::find(s.untuned.begin(), s.untuned.end(), s.size_column) - s.untuned.begin());

  // Keys in numeric-aware order of their cells.
  std::vector<std::pair<const std::string*, std::vector<std::string_view>>> keys;
  keys.reserve(rows.keys.size());
  for (const auto& [key, sizes] : rows.keys) keys.emplace_back(&key, split_commas(key));
  std::sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) {
    const auto& ca = a.second;
    const auto& cb = b.second;
    for (size_t i = 0; i < std::min(ca.size(), cb.size()); ++i)
      if (int c = compare_cells(ca[i], cb[i]); c != 0) return c < 0;
    return ca.size() < cb.size();
  });

  for (const auto& [key, cells] : keys) {
    if (cells.size() + 1 != s.untuned.size())
      throw Error(fmt::format("internal: key '{}' has {} cells, {} expects {}", *key, cells.size(), s.name,
                              s.untuned.size() - 1));
    for (std::int64_t size : rows.keys.at(*key)) {  // std::set: ascending
      std::vector<std::string> row;
      row.reserve(s.untuned.size());
      size_t next = 0;
      for (size_t col = 0; col < s.untuned.size(); ++col) {
        if (col == size_col)
          row.push_back(std::to_string(size));
        else
          row.emplace_back(cells[next++]);
      }
      table.rows.push_back(std::move(row));
    }
  }
  return table;
}

UntunedRows rows_from_table(Family f, const CsvTable& table) {
  const FamilySpec& s = spec(f);
  bool same = table.header.size() == s.untuned.size();
  for (size_t i = 0; same && i < s.untuned.size(); ++i) same = table.header[i] == s.untuned[i];
  if (!same) {
    std::vector<std::string_view> want(s.untuned.begin(), s.untuned.end());
    throw InputError(table.source, table.header_line, 1,
                     fmt::format("header is '{}', not the {} untuned header '{}'", fmt::join(table.header, ","),
                                 s.name, fmt::join(want, ",")),
                     "--append merges only into a file of the same family; write to another folder with -o");
  }
  validate_key_cells(table, f);  // the shapes --append keeps must be as valid as the ones it adds
  const size_t size_col = static_cast<size_t>(
      std::find(s.untuned.begin(), s.untuned.end(), s.size_column) - s.untuned.begin());
  UntunedRows rows;
  std::string key;
  for (size_t r = 0; r < table.rows.size(); ++r) {
    const auto& row = table.rows[r];
    auto size = as_int(row[size_col]);
    if (!size || *size <= 0)
      throw InputError(table.source, table.line_of(r), table.column_of(r, size_col),
                       fmt::format("{} '{}' is not a positive integer", s.size_column, row[size_col]));
    key.clear();
    bool first = true;
    for (size_t c = 0; c < row.size(); ++c) {
      if (c == size_col) continue;
      if (!first) key.push_back(',');
      first = false;
      key += row[c];
    }
    rows.keys[key].insert(*size);
  }
  return rows;
}

}  // namespace cktune::capture
