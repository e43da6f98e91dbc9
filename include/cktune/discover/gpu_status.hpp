#pragma once
// Live state of the GPUs from the vendor's management interface: NVML (libnvidia-ml.so.1, loaded with
// dlopen so the binary never depends on it) on NVIDIA, `rocm-smi --json` on AMD (unverified: no AMD
// machine here). Answers "busy or free", current clocks and utilisation; "unknown" when neither is there.
#include "cktune/core/device.hpp"
#include "cktune/core/names.hpp"
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cktune::discover {

enum class BusyState { Free, Busy, Unknown };
using BusyStateName = EnumName<BusyState>;
inline constexpr BusyStateName kBusyStateNames[] = {
    {BusyState::Free, "free"},
    {BusyState::Busy, "busy"},
    {BusyState::Unknown, "unknown"},
};
std::string_view to_string(BusyState s);

struct GpuStatus {
  std::string pci_bus_id;                 // normalised ("0000:18:00.0"), to match runtime devices
  std::string name;
  std::optional<int> utilization_pct;     // GPU busy percentage over the last sample period
  std::optional<int> memory_used_pct;
  std::optional<std::uint64_t> memory_used_bytes;
  std::optional<int> processes;           // compute processes on the device
  std::optional<int> sm_clock_mhz;        // current
  std::optional<int> memory_clock_mhz;
  std::optional<int> max_sm_clock_mhz;
  std::optional<int> max_memory_clock_mhz;
  BusyState state = BusyState::Unknown;
};

struct GpuStatusReport {
  std::string source;                     // "nvml", "rocm-smi" or "" (none answered)
  std::string driver_version;             // "580.65.06" from NVML
  std::vector<GpuStatus> devices;         // every device the tool sees (ignores *_VISIBLE_DEVICES)
  std::string error;                      // why nothing answered
};

// Busy when a compute process runs on it or it reports utilisation; free when both are known zero.
BusyState busy_state(std::optional<int> utilization_pct, std::optional<int> processes);

// NVML, then rocm-smi. Never throws.
GpuStatusReport query_gpu_status();
GpuStatusReport query_nvml();
GpuStatusReport query_rocm_smi(double timeout_s = 15.0);

// Parse `rocm-smi --showuse --showmemuse --showbus --showpids --json` output (written from ROCm's
// documented key names; not checked against a real MI300 here).
GpuStatusReport parse_rocm_smi_json(std::string_view text);

const GpuStatus* find_status(const GpuStatusReport& report, std::string_view pci_bus_id);

// ---- Clocks while a run times kernels ----
// Under sustained load a GPU can run below its top clock for reasons that change the timings: the board's power
// cap, thermal slowdown. NVML says which, as a mask of "clock event reasons" (nvmlClocksEventReason*). `tune`
// samples them while it runs and records a summary in its provenance, so that a table says whether its times were
// taken under the cap (docs/perf.md, 2026-11-30: the H200 at its 700 W cap ran long prefill kernels 2-19% slower
// than in the first launches after a pause).
inline constexpr std::uint64_t kClockEventIdle = 0x1;
inline constexpr std::uint64_t kClockEventSwPowerCap = 0x4;
inline constexpr std::uint64_t kClockEventHwSlowdown = 0x8;
inline constexpr std::uint64_t kClockEventSwThermal = 0x20;
inline constexpr std::uint64_t kClockEventHwThermal = 0x40;
inline constexpr std::uint64_t kClockEventHwPowerBrake = 0x80;

struct ClockSample {
  int sm_clock_mhz = 0;
  int max_sm_clock_mhz = 0;
  std::uint64_t reasons = 0;  // NVML's clock event reasons at the sample
  int utilization_pct = -1;   // -1: unknown
};

struct ClockSummary {
  int samples = 0;
  int busy = 0;          // samples with the GPU busy (utilisation above 0, not idle)
  int power_capped = 0;  // busy samples under the software power cap or the hardware power brake
  int thermal = 0;       // busy samples under thermal or hardware slowdown
  int min_sm_mhz = 0, median_sm_mhz = 0;  // over the busy samples (0 when none)
  int max_sm_mhz = 0;                     // the device's top SM clock
  std::uint64_t reasons = 0;              // every reason seen in a busy sample (names: clock_event_names)
};

// What a run's log says about its clocks: "" when no busy sample was slowed, else which limit held how many of
// them, and that the times are sustained-load figures.
std::string clock_note(const ClockSummary& s);
// The names of the reasons set in a mask ("sw_power_cap", "hw_thermal", ...), in bit order.
std::vector<std::string> clock_event_names(std::uint64_t reasons);
ClockSummary summarize_clocks(const std::vector<ClockSample>& samples);

// Samples the clocks of the devices with these PCI bus ids (normalised, as in DeviceInfo) through NVML. Inactive,
// and every call a no-op, where NVML does not answer (no NVIDIA driver, an AMD machine, the CPU backend).
class ClockWatch {
 public:
  explicit ClockWatch(std::vector<std::string> pci_bus_ids);
  explicit ClockWatch(const std::vector<DeviceInfo>& devices);  // the GPU-backend ones among them
  ~ClockWatch();
  ClockWatch(const ClockWatch&) = delete;
  ClockWatch& operator=(const ClockWatch&) = delete;
  bool active() const;
  void sample();  // one sample per watched device
  ClockSummary summary() const { return summarize_clocks(samples_); }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<ClockSample> samples_;
};

}  // namespace cktune::discover
