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
#include "cktune/core/hash.hpp"
#include "cktune/core/io.hpp"
#include "cktune/core/log.hpp"
#include "cktune/engine/job.hpp"
#include "cktune/results/results.hpp"
#include "cktune/tune/tuner.hpp"

namespace cktune {

namespace fs = std::filesystem;

// ---------------------------------------------------------------- run state


std::string run_identity(const TuneOptions& o, Family family, const std::vector<ProblemKey>& keys,
                         const std::vector<std::string>& candidates, const DeviceInfo& device) {
  nlohmann::json j = {{"family", family_name(family)}, {"device", device.name}, {"gfx", device.gfx},
                      {"cu_num", device.cu_num},       {"candidates", candidates},
                      {"seed", o.measure.protocol.seed},       {"all", o.all},
                      {"shard", o.shard},              {"warmup", o.measure.protocol.warmup},
                      {"iters", o.measure.protocol.iters},     {"err_ratio", o.measure.err_ratio}};
  // A different decision rule is a different run: its journal must not mark shapes as done.
  if (o.min_improvement_pct) j["min_improvement_pct"] = *o.min_improvement_pct;
  if (o.measure.protocol.settle_ms >= 0) j["settle_ms"] = o.measure.protocol.settle_ms;  // only when given
  nlohmann::json k = nlohmann::json::array();
  for (const auto& key : keys) k.push_back(key.cells);
  j["keys"] = k;
  // A hash fixed across builds and platforms: a journal written by one cktune binary resumes under another.
  return fmt::format("{:016x}", stable_hash64(j.dump()));
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
      if (auto st = enum_from_text(kJournalStatusNames, j.value("status", "")))
        s.status_[j.at("key").get<std::vector<std::string>>()] = *st;
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

std::optional<JournalStatus> RunState::status(const ProblemKey& key) const {
  auto it = status_.find(key.cells);
  if (it == status_.end()) return std::nullopt;
  return it->second;
}

void RunState::record(const ProblemKey& key, JournalStatus status, const std::string& detail) {
  status_[key.cells] = status;
  nlohmann::json j = {{"key", key.cells}, {"status", to_string(status)}, {"detail", detail},
                      {"at", format_timestamp(std::chrono::system_clock::now())}};
  std::string line = j.dump() + "\n";
  int fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(fmt::format("cannot append to {}: {}", path_, std::strerror(errno)));
  bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) throw Error(fmt::format("cannot append to {}", path_));
}

void write_provenance(const TuneOptions& o, Family family, const std::vector<DeviceInfo>& devices, int shapes,
                      const std::string& status, const discover::ClockSummary* clocks) {
  // The devices as the engine describes them everywhere (their PCI bus id included: two GPUs of the same model and
  // driver measured the same pipeline 6% apart, docs/perf.md 2026-11-30 10:50).
  nlohmann::json devs = nlohmann::json::array();
  for (const auto& d : devices) devs.push_back(to_json(d));
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
  // Every candidate's result (-o2): `report` reads a fused-MoE table's pipeline times from it.
  if (!o.profile_file.empty()) j["profile"] = fs::absolute(o.profile_file).string();
  j["devices"] = devs;
  if (!devices.empty()) {
    j["gfx"] = devices.front().gfx;
    j["cu_num"] = devices.front().cu_num;
  }
  const Protocol& p = o.measure.protocol;
  j["protocol"] = {{"warmup", p.warmup}, {"iters", p.iters},
                   {"min_time_ms", p.min_time_ms}, {"rotate", p.rotate},
                   {"settle_ms", settle_ms_for(p, devices.empty() ? "steady_clock" : timer_name_for(devices.front()))},
                   {"stat", "median"}, {"errRatio", o.measure.err_limit(family)}, {"max_row_errRatio", o.measure.max_row_err_ratio},
                   {"retime_tolerance", o.retime_tolerance}, {"tie_tolerance", o.tie_tolerance}};
  j["seed"] = p.seed;
  j["shard"] = o.shard;
  j["shapes"] = shapes;
  if (clocks && clocks->samples > 0)
    j["clocks"] = {{"samples", clocks->samples},
                   {"busy_samples", clocks->busy},
                   {"power_capped_samples", clocks->power_capped},
                   {"thermal_samples", clocks->thermal},
                   {"sm_clock_mhz_min", clocks->min_sm_mhz},
                   {"sm_clock_mhz_median", clocks->median_sm_mhz},
                   {"sm_clock_mhz_max", clocks->max_sm_mhz},
                   {"reasons", discover::clock_event_names(clocks->reasons)}};
  write_file_atomic(path, j.dump(2) + "\n");
}

void copy_untuned_input(const std::string& input, const std::string& output) {
  if (input == "-") return;
  write_file_atomic(sidecar_dir(output) + "/untuned.csv", read_input(input));
}

}  // namespace cktune
