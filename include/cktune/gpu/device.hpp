#pragma once
// What GPUs this process sees, asked in a way every translation unit can use: this header needs no
// vendor headers, and a build without a GPU backend answers "none" with the reason instead of failing.
// The runtime calls themselves live in src/gpu/ (the only host code that touches the GPU runtime).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cktune/core/device.hpp"

namespace cktune::gpu {

// One device description for the whole project: cktune/core/device.hpp.
using cktune::DeviceInfo;

// Versions of the runtime linked into this binary and of the installed driver.
struct RuntimeVersions {
  std::string backend;              // "cuda", "hip" or "none"
  std::string runtime_version;      // "13.0" ("" when unknown)
  std::string driver_version;       // highest runtime version the driver supports: "13.0" ("" when none)
  std::string error;                // why the versions could not be read, if so
};

// "cuda", "hip" or "none": the GPU backend compiled into this build.
std::string_view backend_name();

// Number of visible devices; 0 when there is no backend, no driver or no device (never throws).
int device_count();

// Every visible device. Empty with `why_empty` set ("this build has no GPU backend", "no CUDA-capable
// device is detected", ...) when there is none. `with_free_memory` creates a context on each device
// to ask for free memory (slow-ish, ~0.1-0.5 s per device on first use).
std::vector<DeviceInfo> enumerate_gpus(std::string* why_empty = nullptr, bool with_free_memory = false);

RuntimeVersions runtime_versions();

// Make `device` current for this thread. Throws GpuError.
void set_device(int device);

// --- pure helpers (no runtime needed; unit-tested) ---

// AITER's gfx column from the runtime's arch name: "gfx942:sramecc+:xnack-" -> "gfx942".
std::string normalize_arch(std::string_view runtime_arch);

// NVIDIA arch string AITER-style tables use: (9, 0) -> "sm_90".
std::string sm_arch(int major, int minor);

// CUDA-style encoded version (1000*major + 10*minor) -> "13.0"; 0 or negative -> "".
// HIP encodes 10000000*major + 100000*minor + patch; pass hip = true for that.
std::string format_runtime_version(int encoded, bool hip = false);

// Normalise a PCI bus id so different tools' spellings compare equal:
// "00000000:18:00.0" (NVML) and "0000:18:00.0" (CUDA) -> "0000:18:00.0"; "" when unparsable.
std::string normalize_pci_bus_id(std::string_view id);

// A device's 16-byte UUID as nvidia-smi prints it: "GPU-082af63b-aecb-ecc3-16f5-ca2658e93a3e"; "" when every byte is
// zero (not reported). It names the board, where a virtual machine's PCI bus id and the VBIOS may repeat across boards.
std::string format_gpu_uuid(const unsigned char (&bytes)[16]);

}  // namespace cktune::gpu
