#include "cktune/formats/tuned_table.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cktune/core/error.hpp"
#include "cktune/core/io.hpp"

namespace cktune {

std::string sidecar_dir(const std::string& output) { return output + ".cktune"; }
std::string provenance_path(const std::string& output) { return output + ".provenance.json"; }

// ---------------------------------------------------------------- tuned table

TunedTable TunedTable::open(const std::string& path, Family family) {
  TunedTable t;
  t.path_ = path;
  t.family_ = family;
  const auto& tuned = spec(family).tuned;
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st))
    throw Error(fmt::format("{} exists and is not a regular file (a device, FIFO or directory)", path),
                "write the table to a regular file: choose another -o");
  if (file_exists(path)) {
    t.csv_ = read_csv(path);
    for (auto c : {std::string_view("gfx"), std::string_view("cu_num")})
      if (!t.csv_.column(c))
        throw InputError(path, 1, 0, fmt::format("the output table has no '{}' column", c),
                         "write to a new file, or convert the table with `cktune merge`");
    for (auto c : spec(family).untuned)
      if (!t.csv_.column(c))
        throw InputError(path, 1, 0,
                         fmt::format("the output table is not a {} table (no '{}' column)", family_name(family), c),
                         "choose another -o, or the matching --family");
  } else {
    t.csv_.source = path;
    t.csv_.header.assign(tuned.begin(), tuned.end());
  }
  t.key_cols_.push_back(*t.csv_.column("gfx"));
  t.key_cols_.push_back(*t.csv_.column("cu_num"));
  for (auto c : spec(family).untuned) t.key_cols_.push_back(*t.csv_.column(c));
  for (size_t r = 0; r < t.csv_.rows.size(); ++r) {
    auto k = t.key_of(t.csv_.rows[r]);
    if (t.index_.count(k))
      throw InputError(path, t.csv_.row_lines[r], 0, "the output table already holds this key twice",
                       "fix it with `cktune merge " + path + " -o fixed.csv` first");
    t.index_[k] = r;
  }
  return t;
}

std::vector<std::string> TunedTable::key_of(const std::vector<std::string>& row) const {
  std::vector<std::string> k;
  for (size_t i = 0; i < key_cols_.size(); ++i) {
    std::string_view col = i == 0 ? "gfx" : i == 1 ? "cu_num" : spec(family_).untuned[i - 2];
    k.push_back(canonical_cell(col, row[key_cols_[i]]));
  }
  return k;
}

namespace {
std::vector<std::string> lookup_key(const std::string& gfx, int cu_num, const ProblemKey& key) {
  std::vector<std::string> k = {gfx, std::to_string(cu_num)};
  k.insert(k.end(), key.cells.begin(), key.cells.end());
  return k;
}
}  // namespace

bool TunedTable::has(const std::string& gfx, int cu_num, const ProblemKey& key) const {
  return index_.count(lookup_key(gfx, cu_num, key)) > 0;
}

std::string TunedTable::kernel_for(const std::string& gfx, int cu_num, const ProblemKey& key) const {
  auto it = index_.find(lookup_key(gfx, cu_num, key));
  return it == index_.end() ? std::string() : tuned_row_kernel(family_, csv_, csv_.rows[it->second]);
}

std::string tuned_row_kernel(Family family, const CsvTable& table, const std::vector<std::string>& row) {
  if (!spec(family).is_moe) {
    auto col = table.column("kernelName");
    return col ? row[*col] : std::string();
  }
  // A two-stage row names both stages; cktune's GPU pipelines are named "<stage 1>+<stage 2>".
  auto k1 = table.column("kernelName1"), k2 = table.column("kernelName2"), one = table.column("run_1stage");
  if (!k1) return {};
  const bool one_stage = one && (row[*one] == "1" || row[*one] == "True");
  if (one_stage || !k2 || row[*k2].empty() || row[*k2] == "None") return row[*k1];
  return row[*k1] + "+" + row[*k2];
}

void TunedTable::put(const std::vector<std::string>& row_in_schema) {
  // Rows come in the family's current schema; map them onto this table's header (an existing file keeps
  // its own column order and optional columns).
  const auto& tuned = spec(family_).tuned;
  std::vector<std::string> row(csv_.header.size());
  for (size_t c = 0; c < csv_.header.size(); ++c) {
    auto it = std::find(tuned.begin(), tuned.end(), csv_.header[c]);
    if (it != tuned.end()) row[c] = row_in_schema[static_cast<size_t>(it - tuned.begin())];
  }
  auto k = key_of(row);
  auto it = index_.find(k);
  if (it != index_.end()) {
    csv_.rows[it->second] = std::move(row);
  } else {
    index_[k] = csv_.rows.size();
    csv_.rows.push_back(std::move(row));
    csv_.row_lines.push_back(0);
  }
}

void TunedTable::save() const {
  CsvTable out = csv_;
  if (!spec(family_).is_moe) {
    // AITER's GEMM tuners sort by N before M; cktune sorts by gfx, cu_num, then the key with M last.
    auto num = [](const std::string& s) {
      long v = 0;
      std::from_chars(s.data(), s.data() + s.size(), v);
      return v;
    };
    std::vector<size_t> order(out.rows.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::vector<size_t> cols = {key_cols_[0], key_cols_[1]};
    size_t m_col = 0;
    for (size_t i = 0; i < spec(family_).untuned.size(); ++i) {
      if (spec(family_).untuned[i] == "M") m_col = key_cols_[i + 2];
      else cols.push_back(key_cols_[i + 2]);
    }
    cols.push_back(m_col);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      for (size_t c : cols) {
        const auto &x = out.rows[a][c], &y = out.rows[b][c];
        if (c == key_cols_[0] || x.empty() || !std::isdigit(static_cast<unsigned char>(x[0]))) {
          if (x != y) return x < y;
        } else if (num(x) != num(y)) {
          return num(x) < num(y);
        }
      }
      return false;
    });
    CsvTable sorted = out;
    for (size_t i = 0; i < order.size(); ++i) {
      sorted.rows[i] = out.rows[order[i]];
      sorted.row_lines[i] = out.row_lines[order[i]];
    }
    out = std::move(sorted);
  }
  write_csv_atomic(out, path_);
}

bool TableOrigin::other_board(const std::string& gfx_here, int cu_num_here, const std::string& uuid) const {
  if (gfx_here != gfx || cu_num_here != cu_num || uuid.empty() || uuids.empty()) return false;
  return std::find(uuids.begin(), uuids.end(), uuid) == uuids.end();
}

nlohmann::json read_table_provenance(const std::string& table_path) {
  const std::string p = provenance_path(table_path);
  if (table_path == "-" || !file_exists(p)) return nullptr;
  try {
    return nlohmann::json::parse(read_input(p));
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(p, 0, 0, fmt::format("not valid JSON: {}", e.what()), "remove it, or restore the one cktune wrote");
  }
}

std::optional<TableOrigin> read_table_origin(const std::string& table_path) {
  try {
    const nlohmann::json j = read_table_provenance(table_path);
    if (j.is_null()) return std::nullopt;
    TableOrigin t;
    t.gfx = j.value("gfx", "");
    t.cu_num = j.value("cu_num", 0);
    if (const std::string f = j.value("family", ""); !f.empty()) t.family = family_from_name(f);
    if (j.contains("devices") && j["devices"].is_array() && !j["devices"].empty()) {
      t.device = j["devices"][0].value("name", "");
      for (const auto& d : j["devices"])
        if (std::string u = d.value("uuid", ""); !u.empty()) t.uuids.push_back(std::move(u));
    }
    return t;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace cktune
