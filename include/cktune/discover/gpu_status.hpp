#pragma once
// Live state of the GPUs from the vendor's management interface: NVML (libnvidia-ml.so.1, loaded with
// dlopen so the binary never depends on it) on NVIDIA, `rocm-smi --json` on AMD (unverified: no AMD
// machine here). Answers "busy or free", current clocks and utilisation; "unknown" when neither is there.
#include "cktune/core/names.hpp"
#include <cstdint>
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

}  // namespace cktune::discover
