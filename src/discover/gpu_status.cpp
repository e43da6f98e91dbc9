#include "cktune/discover/gpu_status.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cktune/discover/process.hpp"
#include "cktune/gpu/device.hpp"

namespace cktune::discover {

std::string_view to_string(BusyState s) {
  return enum_text(kBusyStateNames, s, "unknown");
}

BusyState busy_state(std::optional<int> utilization_pct, std::optional<int> processes) {
  if ((processes && *processes > 0) || (utilization_pct && *utilization_pct > 0)) return BusyState::Busy;
  if (processes && utilization_pct) return BusyState::Free;
  return BusyState::Unknown;
}

const GpuStatus* find_status(const GpuStatusReport& report, std::string_view pci_bus_id) {
  if (pci_bus_id.empty()) return nullptr;
  for (const auto& d : report.devices)
    if (d.pci_bus_id == pci_bus_id) return &d;
  return nullptr;
}

// ---- NVML through dlopen: the few entry points and plain-C types we need, declared here ----
// A named namespace, not an anonymous one: ClockWatch::Impl (a class with linkage) holds an Nvml, which GCC flags
// (-Wsubobject-linkage) when the unity build includes this file into another.
namespace nvml_dl {
using NvmlReturn = int;  // nvmlReturn_t; 0 = success
using NvmlDevice = struct NvmlDeviceOpaque*;
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr NvmlReturn kNvmlInsufficientSize = 7;
constexpr int kNvmlClockSm = 1;   // NVML_CLOCK_SM
constexpr int kNvmlClockMem = 2;  // NVML_CLOCK_MEM
struct NvmlUtilization {
  unsigned gpu;
  unsigned memory;
};
struct NvmlMemory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
struct NvmlPciInfo {  // nvmlPciInfo_t (v3 layout, stable since NVML 4)
  char bus_id_legacy[16];
  unsigned domain;
  unsigned bus;
  unsigned device;
  unsigned pci_device_id;
  unsigned pci_subsystem_id;
  char bus_id[32];
};

class Nvml {
 public:
  Nvml() {
    lib_ = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib_) {
      const char* e = ::dlerror();
      error_ = fmt::format("NVML not available ({})", e ? e : "libnvidia-ml.so.1 not found");
      return;
    }
    init_ = sym<NvmlReturn (*)()>("nvmlInit_v2");
    shutdown_ = sym<NvmlReturn (*)()>("nvmlShutdown");
    error_string_ = sym<const char* (*)(NvmlReturn)>("nvmlErrorString");
    count_ = sym<NvmlReturn (*)(unsigned*)>("nvmlDeviceGetCount_v2");
    handle_ = sym<NvmlReturn (*)(unsigned, NvmlDevice*)>("nvmlDeviceGetHandleByIndex_v2");
    name_ = sym<NvmlReturn (*)(NvmlDevice, char*, unsigned)>("nvmlDeviceGetName");
    pci_ = sym<NvmlReturn (*)(NvmlDevice, NvmlPciInfo*)>("nvmlDeviceGetPciInfo_v3");
    util_ = sym<NvmlReturn (*)(NvmlDevice, NvmlUtilization*)>("nvmlDeviceGetUtilizationRates");
    mem_ = sym<NvmlReturn (*)(NvmlDevice, NvmlMemory*)>("nvmlDeviceGetMemoryInfo");
    clock_ = sym<NvmlReturn (*)(NvmlDevice, int, unsigned*)>("nvmlDeviceGetClockInfo");
    max_clock_ = sym<NvmlReturn (*)(NvmlDevice, int, unsigned*)>("nvmlDeviceGetMaxClockInfo");
    procs_ = sym<NvmlReturn (*)(NvmlDevice, unsigned*, void*)>("nvmlDeviceGetComputeRunningProcesses_v3");
    driver_ = sym<NvmlReturn (*)(char*, unsigned)>("nvmlSystemGetDriverVersion");
    // Renamed in NVML 12.x; the older name stays exported.
    reasons_ = sym<NvmlReturn (*)(NvmlDevice, unsigned long long*)>("nvmlDeviceGetCurrentClocksEventReasons");
    if (!reasons_)
      reasons_ = sym<NvmlReturn (*)(NvmlDevice, unsigned long long*)>("nvmlDeviceGetCurrentClocksThrottleReasons");
    if (!init_ || !count_ || !handle_) {
      error_ = "NVML library lacks nvmlInit_v2 / nvmlDeviceGetCount_v2";
      return;
    }
    if (NvmlReturn r = init_(); r != kNvmlSuccess) {
      error_ = fmt::format("nvmlInit failed: {}", describe(r));
      return;
    }
    ready_ = true;
  }
  ~Nvml() {
    if (ready_ && shutdown_) shutdown_();
    if (lib_) ::dlclose(lib_);
  }
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  GpuStatusReport query() {
    GpuStatusReport rep;
    if (!ready_) {
      rep.error = error_;
      return rep;
    }
    rep.source = "nvml";
    char text[96] = {};
    if (driver_ && driver_(text, sizeof text) == kNvmlSuccess) rep.driver_version = text;
    unsigned n = 0;
    if (NvmlReturn r = count_(&n); r != kNvmlSuccess) {
      rep.error = fmt::format("nvmlDeviceGetCount failed: {}", describe(r));
      return rep;
    }
    for (unsigned i = 0; i < n; ++i) {
      NvmlDevice dev = nullptr;
      if (handle_(i, &dev) != kNvmlSuccess) continue;
      GpuStatus s;
      char name[96] = {};
      if (name_ && name_(dev, name, sizeof name) == kNvmlSuccess) s.name = name;
      NvmlPciInfo pci{};
      if (pci_ && pci_(dev, &pci) == kNvmlSuccess) s.pci_bus_id = gpu::normalize_pci_bus_id(pci.bus_id);
      NvmlUtilization u{};
      if (util_ && util_(dev, &u) == kNvmlSuccess) {
        s.utilization_pct = static_cast<int>(u.gpu);
      }
      NvmlMemory m{};
      if (mem_ && mem_(dev, &m) == kNvmlSuccess) {
        s.memory_used_bytes = m.used;
        if (m.total) s.memory_used_pct = static_cast<int>(100.0 * static_cast<double>(m.used) / static_cast<double>(m.total));
      }
      unsigned mhz = 0;
      if (clock_ && clock_(dev, kNvmlClockSm, &mhz) == kNvmlSuccess) s.sm_clock_mhz = static_cast<int>(mhz);
      if (clock_ && clock_(dev, kNvmlClockMem, &mhz) == kNvmlSuccess) s.memory_clock_mhz = static_cast<int>(mhz);
      if (max_clock_ && max_clock_(dev, kNvmlClockSm, &mhz) == kNvmlSuccess) s.max_sm_clock_mhz = static_cast<int>(mhz);
      if (max_clock_ && max_clock_(dev, kNvmlClockMem, &mhz) == kNvmlSuccess)
        s.max_memory_clock_mhz = static_cast<int>(mhz);
      if (procs_) {
        // Asking with room for none returns the count (SUCCESS when 0, INSUFFICIENT_SIZE otherwise).
        unsigned count = 0;
        NvmlReturn r = procs_(dev, &count, nullptr);
        if (r == kNvmlSuccess || r == kNvmlInsufficientSize) s.processes = static_cast<int>(count);
      }
      s.state = busy_state(s.utilization_pct, s.processes);
      rep.devices.push_back(std::move(s));
    }
    return rep;
  }

  bool ready() const { return ready_; }

  // The devices whose normalised PCI bus id is in `ids`, in that order (absent ones left out).
  std::vector<NvmlDevice> devices_by_bus_id(const std::vector<std::string>& ids) {
    std::vector<NvmlDevice> out;
    if (!ready_) return out;
    unsigned n = 0;
    if (count_(&n) != kNvmlSuccess || !pci_) return out;
    for (const auto& want : ids)
      for (unsigned i = 0; i < n; ++i) {
        NvmlDevice dev = nullptr;
        NvmlPciInfo pci{};
        if (handle_(i, &dev) == kNvmlSuccess && pci_(dev, &pci) == kNvmlSuccess &&
            gpu::normalize_pci_bus_id(pci.bus_id) == want) {
          out.push_back(dev);
          break;
        }
      }
    return out;
  }

  ClockSample clocks(NvmlDevice dev) {
    ClockSample c;
    unsigned mhz = 0;
    if (clock_ && clock_(dev, kNvmlClockSm, &mhz) == kNvmlSuccess) c.sm_clock_mhz = static_cast<int>(mhz);
    if (max_clock_ && max_clock_(dev, kNvmlClockSm, &mhz) == kNvmlSuccess) c.max_sm_clock_mhz = static_cast<int>(mhz);
    unsigned long long r = 0;
    if (reasons_ && reasons_(dev, &r) == kNvmlSuccess) c.reasons = r;
    NvmlUtilization u{};
    if (util_ && util_(dev, &u) == kNvmlSuccess) c.utilization_pct = static_cast<int>(u.gpu);
    return c;
  }

 private:
  template <class F>
  F sym(const char* name) {
    return reinterpret_cast<F>(::dlsym(lib_, name));
  }
  std::string describe(NvmlReturn r) const {
    const char* s = error_string_ ? error_string_(r) : nullptr;
    return s ? fmt::format("{} ({})", s, r) : fmt::format("error {}", r);
  }

  void* lib_ = nullptr;
  bool ready_ = false;
  std::string error_;
  NvmlReturn (*init_)() = nullptr;
  NvmlReturn (*shutdown_)() = nullptr;
  const char* (*error_string_)(NvmlReturn) = nullptr;
  NvmlReturn (*count_)(unsigned*) = nullptr;
  NvmlReturn (*handle_)(unsigned, NvmlDevice*) = nullptr;
  NvmlReturn (*name_)(NvmlDevice, char*, unsigned) = nullptr;
  NvmlReturn (*pci_)(NvmlDevice, NvmlPciInfo*) = nullptr;
  NvmlReturn (*util_)(NvmlDevice, NvmlUtilization*) = nullptr;
  NvmlReturn (*mem_)(NvmlDevice, NvmlMemory*) = nullptr;
  NvmlReturn (*clock_)(NvmlDevice, int, unsigned*) = nullptr;
  NvmlReturn (*max_clock_)(NvmlDevice, int, unsigned*) = nullptr;
  NvmlReturn (*procs_)(NvmlDevice, unsigned*, void*) = nullptr;
  NvmlReturn (*driver_)(char*, unsigned) = nullptr;
  NvmlReturn (*reasons_)(NvmlDevice, unsigned long long*) = nullptr;
};

// "12", "12%", " 12.0 " -> 12; nullopt when no number.
std::optional<int> leading_int(const nlohmann::json& v) {
  if (v.is_number()) return v.get<int>();
  if (!v.is_string()) return std::nullopt;
  const std::string& s = v.get_ref<const std::string&>();
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  if (i == s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
  return std::atoi(s.c_str() + i);
}

// rocm-smi prints clocks as "(1800Mhz)".
std::optional<int> clock_mhz(const nlohmann::json& v) {
  if (!v.is_string()) return std::nullopt;
  std::string s = v.get<std::string>();
  size_t i = s.find_first_of("0123456789");
  if (i == std::string::npos) return std::nullopt;
  return std::atoi(s.c_str() + i);
}
}  // namespace nvml_dl
using namespace nvml_dl;

GpuStatusReport query_nvml() {
  Nvml nvml;
  return nvml.query();
}

std::vector<std::string> clock_event_names(std::uint64_t reasons) {
  static constexpr std::pair<std::uint64_t, const char*> kNames[] = {
      {kClockEventIdle, "idle"},
      {0x2, "applications_clocks"},
      {kClockEventSwPowerCap, "sw_power_cap"},
      {kClockEventHwSlowdown, "hw_slowdown"},
      {0x10, "sync_boost"},
      {kClockEventSwThermal, "sw_thermal"},
      {kClockEventHwThermal, "hw_thermal"},
      {kClockEventHwPowerBrake, "hw_power_brake"},
      {0x100, "display_clocks"},
  };
  std::vector<std::string> out;
  std::uint64_t known = 0;
  for (const auto& [bit, name] : kNames) {
    known |= bit;
    if (reasons & bit) out.emplace_back(name);
  }
  if (reasons & ~known) out.push_back(fmt::format("other_0x{:x}", reasons & ~known));
  return out;
}

ClockSummary summarize_clocks(const std::vector<ClockSample>& samples) {
  ClockSummary s;
  s.samples = static_cast<int>(samples.size());
  std::vector<int> busy_mhz;
  for (const auto& c : samples) {
    s.max_sm_mhz = std::max(s.max_sm_mhz, c.max_sm_clock_mhz);
    if (c.utilization_pct <= 0 || (c.reasons & kClockEventIdle)) continue;
    ++s.busy;
    s.reasons |= c.reasons;
    if (c.reasons & (kClockEventSwPowerCap | kClockEventHwPowerBrake)) ++s.power_capped;
    if (c.reasons & (kClockEventSwThermal | kClockEventHwThermal | kClockEventHwSlowdown)) ++s.thermal;
    if (c.sm_clock_mhz > 0) busy_mhz.push_back(c.sm_clock_mhz);
  }
  if (!busy_mhz.empty()) {
    std::sort(busy_mhz.begin(), busy_mhz.end());
    s.min_sm_mhz = busy_mhz.front();
    s.median_sm_mhz = busy_mhz[busy_mhz.size() / 2];
  }
  return s;
}

std::string clock_note(const ClockSummary& s) {
  if (s.power_capped == 0 && s.thermal == 0) return {};
  return fmt::format("clocks: {} of {} samples with the GPU busy ran under {} (SM clock median {} MHz, down to {}, "
                     "top {}): the times are sustained-load figures, slower than first launches after a pause "
                     "(docs/cli/tune.md, --settle-ms)",
                     std::max(s.power_capped, s.thermal), s.busy,
                     s.power_capped >= s.thermal ? "the board's power cap" : "thermal slowdown", s.median_sm_mhz,
                     s.min_sm_mhz, s.max_sm_mhz);
}

struct ClockWatch::Impl {
  Nvml nvml;
  std::vector<NvmlDevice> devices;
};

ClockWatch::ClockWatch(std::vector<std::string> pci_bus_ids) {
  std::erase_if(pci_bus_ids, [](const std::string& id) { return id.empty(); });
  if (pci_bus_ids.empty()) return;
  impl_ = std::make_unique<Impl>();
  if (impl_->nvml.ready()) impl_->devices = impl_->nvml.devices_by_bus_id(pci_bus_ids);
  if (impl_->devices.empty()) impl_.reset();
}

namespace {
std::vector<std::string> gpu_bus_ids(const std::vector<DeviceInfo>& devices) {
  std::vector<std::string> ids;
  for (const auto& d : devices)
    if (d.backend == "gpu") ids.push_back(d.pci_bus_id);
  return ids;
}
}  // namespace

ClockWatch::ClockWatch(const std::vector<DeviceInfo>& devices) : ClockWatch(gpu_bus_ids(devices)) {}

ClockWatch::~ClockWatch() = default;

bool ClockWatch::active() const { return impl_ != nullptr; }

void ClockWatch::sample() {
  if (!impl_) return;
  for (NvmlDevice dev : impl_->devices) samples_.push_back(impl_->nvml.clocks(dev));
}

GpuStatusReport parse_rocm_smi_json(std::string_view text) {
  GpuStatusReport rep;
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) {
    rep.error = "rocm-smi printed no JSON";
    return rep;
  }
  rep.source = "rocm-smi";
  for (const auto& [card, fields] : j.items()) {
    if (card.rfind("card", 0) != 0 || !fields.is_object()) continue;
    GpuStatus s;
    auto get = [&](const char* key) -> const nlohmann::json* {
      auto it = fields.find(key);
      return it == fields.end() ? nullptr : &*it;
    };
    if (auto* v = get("PCI Bus"); v && v->is_string()) s.pci_bus_id = gpu::normalize_pci_bus_id(v->get<std::string>());
    if (auto* v = get("Card series"); v && v->is_string()) s.name = v->get<std::string>();
    if (auto* v = get("GPU use (%)")) s.utilization_pct = leading_int(*v);
    if (auto* v = get("GPU Memory Allocated (VRAM%)")) s.memory_used_pct = leading_int(*v);
    if (auto* v = get("sclk clock speed:")) s.sm_clock_mhz = clock_mhz(*v);
    if (auto* v = get("mclk clock speed:")) s.memory_clock_mhz = clock_mhz(*v);
    s.state = busy_state(s.utilization_pct, s.processes);
    rep.devices.push_back(std::move(s));
  }
  if (auto it = j.find("system"); it != j.end() && it->is_object()) {
    if (auto d = it->find("Driver version"); d != it->end() && d->is_string()) rep.driver_version = d->get<std::string>();
    // "PID1234": "python3, 1, ..." entries list running KFD processes (all GPUs together).
  }
  return rep;
}

GpuStatusReport query_rocm_smi(double timeout_s) {
  GpuStatusReport rep;
  auto r = run_process({"rocm-smi", "--showuse", "--showmemuse", "--showbus", "--showclocks", "--showdriverversion",
                        "--showproductname", "--json"},
                       timeout_s);
  if (!r.started) {
    rep.error = "rocm-smi not found";
    return rep;
  }
  if (r.timed_out || r.exit_code != 0) {
    rep.error = r.timed_out ? "rocm-smi: " + r.error : fmt::format("rocm-smi exited with status {}", r.exit_code);
    return rep;
  }
  return parse_rocm_smi_json(r.out);
}

GpuStatusReport query_gpu_status() {
  auto nv = query_nvml();
  if (!nv.source.empty()) return nv;
  auto amd = query_rocm_smi();
  if (!amd.source.empty()) return amd;
  GpuStatusReport none;
  none.error = nv.error + "; " + amd.error;
  return none;
}

}  // namespace cktune::discover
