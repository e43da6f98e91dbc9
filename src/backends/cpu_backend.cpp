#include "backends/cpu_backend.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "cktune/numerics/bf16.hpp"
#include "cktune/verify/check.hpp"

namespace cktune {

void HostOutput::poison() { poison_nan(cells.data(), static_cast<std::int64_t>(cells.size())); }

void HostOutput::corrupt(FaultKind kind) {
  if (kind == FaultKind::Wrong) {
    // Plausible-looking garbage: scale every third value, the way a wrong scale index would.
    for (size_t i = 0; i < cells.size(); i += 3) cells[i] = float_to_bf16(bf16_to_float(cells[i]) * 1.75f + 0.5f);
  } else if (kind == FaultKind::Partial) {
    // The last quarter of the output is never written.
    const size_t keep = cells.size() * 3 / 4;
    poison_nan(cells.data() + keep, static_cast<std::int64_t>(cells.size() - keep));
  }
}

namespace {

class SteadyTimer final : public Timer {
 public:
  void reserve(int n) override {
    begin_.assign(static_cast<size_t>(n), {});
    end_.assign(static_cast<size_t>(n), {});
  }
  void begin(int i) override { begin_[static_cast<size_t>(i)] = std::chrono::steady_clock::now(); }
  void end(int i) override { end_[static_cast<size_t>(i)] = std::chrono::steady_clock::now(); }
  std::vector<double> collect_us() override {
    std::vector<double> out;
    for (size_t i = 0; i < begin_.size(); ++i)
      out.push_back(std::chrono::duration<double, std::micro>(end_[i] - begin_[i]).count());
    return out;
  }

 private:
  std::vector<std::chrono::steady_clock::time_point> begin_, end_;
};

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "CPU";
}

std::uint64_t last_level_cache_bytes() {
  std::uint64_t best = 0;
  for (int i = 0; i < 8; ++i) {
    std::ifstream in(fmt::format("/sys/devices/system/cpu/cpu0/cache/index{}/size", i));
    std::string s;
    if (!(in >> s)) continue;
    std::uint64_t v = std::strtoull(s.c_str(), nullptr, 10);
    if (!s.empty() && (s.back() == 'K')) v <<= 10;
    if (!s.empty() && (s.back() == 'M')) v <<= 20;
    best = std::max(best, v);
  }
  return best > 0 ? best : (32u << 20);
}

class CpuBackend final : public Backend {
 public:
  CpuBackend() {
    dev_.backend = "cpu";
    dev_.name = cpu_model_name();
    dev_.gfx = "cpu";
    dev_.cu_num = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    struct utsname u {};
    if (::uname(&u) == 0) dev_.driver = fmt::format("linux {}", u.release);
    dev_.runtime = "host";
    dev_.l2_bytes = last_level_cache_bytes();
    // CPU runs: the candidates themselves are slow, so the reference may cover every row up to a
    // smaller budget; at most 64 sampled rows; a few rotation sets within 1 GB of host memory.
    policy_.reference_macs_budget = 3e8;
    policy_.min_sampled_rows = 64;
    policy_.max_sampled_rows = 64;
    policy_.min_sets = 2;
    policy_.max_sets = 8;
    policy_.set_memory_budget = 1e9;
  }
  BackendKind kind() const override { return BackendKind::Cpu; }
  const DeviceInfo& device() const override { return dev_; }
  const DevicePolicy& policy() const override { return policy_; }
  std::unique_ptr<Timer> make_timer() override { return std::make_unique<SteadyTimer>(); }
  std::string_view timer_name() const override { return "steady_clock"; }
  [[noreturn]] void hang() override {
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));  // a kernel that never returns
  }

 private:
  DeviceInfo dev_;
  DevicePolicy policy_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace cktune
