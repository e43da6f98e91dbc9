// Loading problem lists (untuned tables) and turning candidate outcomes into results rows.
#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/core/log.hpp"
#include "cktune/formats/csv.hpp"
#include "cktune/tune/tuner.hpp"
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
  return out;
}

ResultRow result_row(const ProblemKey& key, const DeviceInfo& device, const CandidateResult& r, ResultRole role,
                     ResultSource source, const Protocol& protocol, std::uint64_t seed) {
  ResultRow row;
  row.gfx = device.gfx;
  row.cu_num = device.cu_num;
  row.key = key;
  row.role = role;
  row.source = source;
  row.backend = device.backend;
  row.libtype = r.libtype;
  row.kernel_id = r.id;
  row.kernel_name = r.name;
  row.split_k = r.split_k;
  bool ok = r.verdict == Verdict::Passed;
  row.us = ok ? r.time.median_us : (r.verdict == Verdict::TimedOut ? std::numeric_limits<double>::infinity() : -1.0);
  row.us_min = ok ? r.time.min_us : -1;
  row.us_p10 = ok ? r.time.p10_us : -1;
  row.us_p90 = ok ? r.time.p90_us : -1;
  if (ok && r.time.median_us > 0) {
    row.tflops = key.flops() / (r.time.median_us * 1e6);
    row.bw = key.min_bytes() / (r.time.median_us * 1e-6) / 1e9;
  }
  row.err_ratio = r.check.err_ratio;
  row.verdict = r.verdict;
  row.reason = r.reason;
  row.device = device.name;
  row.protocol = protocol.describe(r.time.sets);
  row.seed = seed;
  row.timestamp = format_timestamp(std::chrono::system_clock::now());
  row.version = CKTUNE_VERSION;
  return row;
}

}  // namespace cktune
