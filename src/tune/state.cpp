#include "cktune/tune/state.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cktune/core/error.hpp"
#include "cktune/core/io.hpp"
#include "cktune/core/log.hpp"
#include "cktune/results/results.hpp"
#include "cktune/tune/tuner.hpp"

namespace cktune {

namespace fs = std::filesystem;

// ---------------------------------------------------------------- tuned table

TunedTable TunedTable::open(const std::string& path, Family family) {
  TunedTable t;
  t.path_ = path;
  t.family_ = family;
  const auto& tuned = spec(family).tuned;
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
  if (it == index_.end()) return {};
  auto col = csv_.column(spec(family_).is_moe ? "kernelName1" : "kernelName");
  return col ? csv_.rows[it->second][*col] : std::string();
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

// ---------------------------------------------------------------- run state

std::string sidecar_dir(const std::string& output) { return output + ".cktune"; }
std::string provenance_path(const std::string& output) { return output + ".provenance.json"; }

std::string run_identity(const TuneOptions& o, Family family, const std::vector<ProblemKey>& keys,
                         const std::vector<std::string>& candidates, const DeviceInfo& device) {
  nlohmann::json j = {{"family", family_name(family)}, {"device", device.name}, {"gfx", device.gfx},
                      {"cu_num", device.cu_num},       {"candidates", candidates},
                      {"seed", o.protocol.seed},       {"all", o.all},
                      {"shard", o.shard},              {"warmup", o.protocol.warmup},
                      {"iters", o.protocol.iters},     {"err_ratio", o.err_ratio}};
  // A different decision rule is a different run: its journal must not mark shapes as done.
  if (o.min_improvement_pct) j["min_improvement_pct"] = *o.min_improvement_pct;
  nlohmann::json k = nlohmann::json::array();
  for (const auto& key : keys) k.push_back(key.cells);
  j["keys"] = k;
  return fmt::format("{:016x}", std::hash<std::string>{}(j.dump()));
}

RunState RunState::open(const std::string& output, const std::string& identity) {
  RunState s;
  std::error_code ec;
  fs::create_directories(sidecar_dir(output), ec);
  s.path_ = sidecar_dir(output) + "/journal.jsonl";
  if (file_exists(s.path_)) {
    std::ifstream in(s.path_);
    std::string line;
    bool first = true, same = false;
    while (std::getline(in, line)) {
      nlohmann::json j;
      try {
        j = nlohmann::json::parse(line);
      } catch (const std::exception&) {
        continue;  // a line cut short by a kill: the shape is redone
      }
      if (first) {
        first = false;
        same = j.value("run", "") == identity;
        if (!same) break;
        continue;
      }
      s.status_[j.at("key").get<std::vector<std::string>>()] = j.value("status", "");
    }
    if (!same) {
      std::string old = s.path_ + ".previous";
      fs::rename(s.path_, old, ec);
      s.status_.clear();
    } else {
      // A line cut short by a kill has no newline: end it, or the next record would join it and be lost.
      std::ifstream last(s.path_, std::ios::binary | std::ios::ate);
      if (last.tellg() > 0 && last.seekg(-1, std::ios::end) && last.get() != '\n')
        std::ofstream(s.path_, std::ios::binary | std::ios::app) << '\n';
      log().info("resuming: {} shape(s) already finished by this run", s.status_.size());
      return s;
    }
  }
  nlohmann::json head = {{"run", identity}, {"started", format_timestamp(std::chrono::system_clock::now())}};
  write_file_atomic(s.path_, head.dump() + "\n");
  return s;
}

bool RunState::finished(const ProblemKey& key, bool retry_failed) const {
  auto it = status_.find(key.cells);
  if (it == status_.end()) return false;
  return !(retry_failed && it->second == "failed");
}

void RunState::record(const ProblemKey& key, const std::string& status, const std::string& detail) {
  status_[key.cells] = status;
  nlohmann::json j = {{"key", key.cells}, {"status", status}, {"detail", detail},
                      {"at", format_timestamp(std::chrono::system_clock::now())}};
  std::string line = j.dump() + "\n";
  int fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(fmt::format("cannot append to {}: {}", path_, std::strerror(errno)));
  bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) throw Error(fmt::format("cannot append to {}", path_));
}

void write_provenance(const TuneOptions& o, Family family, const std::vector<DeviceInfo>& devices, int shapes,
                      const std::string& status) {
  nlohmann::json devs = nlohmann::json::array();
  for (const auto& d : devices)
    devs.push_back({{"backend", d.backend}, {"name", d.name}, {"gfx", d.gfx}, {"cu_num", d.cu_num},
                    {"index", d.index}, {"driver", d.driver}, {"runtime", d.runtime}});
  std::string path = provenance_path(o.output);
  nlohmann::json j;
  if (file_exists(path)) {
    try {
      j = nlohmann::json::parse(read_input(path));
    } catch (const std::exception&) {
      j = nlohmann::json::object();
    }
  }
  const std::string now = format_timestamp(std::chrono::system_clock::now());
  if (!j.contains("created")) j["created"] = now;
  j["updated"] = now;
  j["status"] = status;
  j["tool"] = "cktune";
  j["cktune_version"] = CKTUNE_VERSION;
  j["command_line"] = o.command_line;
  j["family"] = family_name(family);
  j["table"] = fs::absolute(o.output).string();
  j["untuned_input"] = fs::absolute(o.input).string();
  j["untuned_copy"] = fs::absolute(sidecar_dir(o.output) + "/untuned.csv").string();
  j["devices"] = devs;
  if (!devices.empty()) {
    j["gfx"] = devices.front().gfx;
    j["cu_num"] = devices.front().cu_num;
  }
  j["protocol"] = {{"warmup", o.protocol.warmup}, {"iters", o.protocol.iters},
                   {"min_time_ms", o.protocol.min_time_ms}, {"rotate", o.protocol.rotate},
                   {"stat", "median"}, {"errRatio", o.err_ratio}, {"max_row_errRatio", o.max_row_err_ratio},
                   {"retime_tolerance", o.retime_tolerance}, {"tie_tolerance", o.tie_tolerance}};
  j["seed"] = o.protocol.seed;
  j["shard"] = o.shard;
  j["shapes"] = shapes;
  write_file_atomic(path, j.dump(2) + "\n");
}

void copy_untuned_input(const std::string& input, const std::string& output) {
  if (input == "-") return;
  write_file_atomic(sidecar_dir(output) + "/untuned.csv", read_input(input));
}

std::optional<TableOrigin> read_table_origin(const std::string& table_path) {
  std::string p = provenance_path(table_path);
  if (!file_exists(p)) return std::nullopt;
  try {
    auto j = nlohmann::json::parse(read_input(p));
    TableOrigin t;
    t.gfx = j.value("gfx", "");
    t.cu_num = j.value("cu_num", 0);
    if (j.contains("devices") && !j["devices"].empty()) t.device = j["devices"][0].value("name", "");
    return t;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace cktune
