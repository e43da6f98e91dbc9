// Loading problem lists (untuned tables).
#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/core/log.hpp"
#include "cktune/formats/csv.hpp"
#include "cktune/formats/table.hpp"
#include "cktune/engine/problems.hpp"
#include "cktune/verify/verdict.hpp"

namespace cktune {

namespace {

// Columns whose cells are text (dtype and enum names); every other key column is a whole number.
bool is_text_column(std::string_view c) {
  return c == "q_dtype_w" || c == "act_type" || c == "dtype" || c == "q_dtype_a" || c == "q_type";
}

bool has_columns(const CsvTable& t, Family f) {
  for (auto c : spec(f).untuned)
    if (!t.column(c)) return false;
  return true;
}

}  // namespace

std::vector<ProblemKey> load_problems(const std::string& path, std::optional<Family>& family) {
  CsvTable t = read_csv(path);
  if (!family) family = family_from_file_name(path);
  if (!family) {
    // Only the header to go by: the family whose key columns are all there and that uses the most of
    // them. Plain M,N,K is ambiguous (blockscale, its preshuffled variant, a4w4): take a8w8_blockscale,
    // cktune's main family, and say so.
    size_t best = 0;
    for (Family f : kAllFamilies)
      if (has_columns(t, f) && spec(f).untuned.size() > best) {
        family = f;
        best = spec(f).untuned.size();
      }
    if (!family)
      throw InputError(path, 1, 0, "the header names no cktune family's key columns",
                       "give --family (a8w8, a8w8_blockscale, ..., moe_2stages) or an untuned CSV in AITER's schema");
    if (*family == Family::A8W8Blockscale)
      log().info("{}: header M,N,K: taking family a8w8_blockscale (give --family to choose another)", path);
  }
  const auto& cols = spec(*family).untuned;
  std::vector<size_t> idx;
  for (auto c : cols) {
    auto i = t.column(c);
    if (!i)
      throw InputError(path, 1, 0, fmt::format("column '{}' of family {} is missing", c, family_name(*family)),
                       fmt::format("the header must hold {}", fmt::join(cols, ",")));
    idx.push_back(*i);
  }
  std::vector<ProblemKey> out;
  std::set<std::vector<std::string>> seen;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    ProblemKey key;
    key.family = *family;
    for (size_t c = 0; c < cols.size(); ++c) {
      std::string cell = canonical_cell(cols[c], t.rows[r][idx[c]]);
      if (!is_text_column(cols[c])) {
        bool digits = !cell.empty() && std::all_of(cell.begin(), cell.end(), [](unsigned char ch) { return std::isdigit(ch); });
        if (!digits)
          throw InputError(path, t.row_lines[r], idx[c] + 1,
                           fmt::format("{} must be a whole number, got '{}'", cols[c], t.rows[r][idx[c]]),
                           "fix or remove the row");
        if (cols[c] != "use_g1u1" && cols[c] != "doweight_stage1" && cell == "0")
          throw InputError(path, t.row_lines[r], idx[c] + 1, fmt::format("{} must be positive", cols[c]),
                           "fix or remove the row");
      } else if (cell.empty()) {
        throw InputError(path, t.row_lines[r], idx[c] + 1, fmt::format("{} is empty", cols[c]));
      }
      key.cells.push_back(std::move(cell));
    }
    if (seen.insert(key.cells).second) out.push_back(std::move(key));
  }
  // Then every key cell against the family's ranges (the one check all table readers share), before
  // any work starts: file:line:col on the first bad one.
  validate_key_cells(t, *family);
  return out;
}

}  // namespace cktune
