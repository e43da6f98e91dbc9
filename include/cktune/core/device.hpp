#pragma once
// The one description of a device cktune runs on (the host CPU or one GPU): discover prints it, the
// engine stamps it into every row (gfx, cu_num), and the shared policies take their sizes from it.
#include <cstdint>
#include <optional>
#include <string>

namespace cktune {

struct DeviceInfo {
  std::string backend;              // "cpu" or "gpu"
  int index = 0;                    // device ordinal as this process sees it (after *_VISIBLE_DEVICES)
  std::string name;                 // "NVIDIA H100 80GB HBM3", "AMD Instinct MI300X", the CPU model
  std::string gfx;                  // AITER's gfx column: "sm_90", "gfx942" (features stripped), "cpu"
  std::string arch_full;            // as the runtime reports it: "gfx942:sramecc+:xnack-", "sm_90"
  int compute_major = 0;            // CUDA compute capability (0 on AMD and the CPU)
  int compute_minor = 0;
  int cu_num = 0;                   // cu_num column: SMs on NVIDIA, CUs on AMD, hardware threads on the CPU
  std::uint64_t memory_total_bytes = 0;
  std::optional<std::uint64_t> memory_free_bytes;  // needs a context on the device; empty when not asked
  int sm_clock_khz = 0;             // peak core clock the runtime reports (0 = not given)
  int memory_clock_khz = 0;         // peak memory clock (0 = not given)
  int memory_bus_width_bits = 0;
  std::uint64_t l2_bytes = 0;       // last-level cache (L2 on GPUs): sizes the input rotation
  std::uint64_t shared_memory_per_block_optin = 0;
  std::string pci_bus_id;           // "0000:18:00.0" (lower-case hex), for matching NVML / rocm-smi
  std::string uuid;                 // "GPU-082af63b-..." as nvidia-smi prints it: names the board ("" if not reported)
  std::string driver;               // driver version text ("" if none)
  std::string runtime;              // runtime version text ("cuda 13.0", "host")
};

}  // namespace cktune
