#pragma once
// `cktune discover`: everything about this machine that decides whether tuned tables will be used —
// GPUs and their (gfx, cu_num), driver and runtime, visibility variables, the AITER install, sglang and
// vLLM, the AITER_CONFIG_* tables and how many of their rows this device can hit, and what this cktune
// build contains. Every part that is missing (no GPU, no Python, no AITER) is reported, never fatal.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cktune/discover/aiter_configs.hpp"
#include "cktune/discover/environment.hpp"
#include "cktune/discover/gpu_status.hpp"
#include "cktune/discover/python_probe.hpp"
#include "cktune/gpu/device.hpp"

namespace cktune::discover {

struct DiscoverOptions {
  std::string python = "python3";   // interpreter whose packages are reported
  double python_timeout_s = 20.0;
  bool query_python = true;         // false: skip the AITER / sglang / vLLM probe
  bool query_git = true;
  bool query_smi = true;            // NVML / rocm-smi for busy state and clocks
  bool free_memory = true;          // create a context per device to read free memory
};

struct GpuEntry {
  DeviceInfo device;
  std::optional<GpuStatus> status;  // from NVML / rocm-smi, matched by PCI bus id
};

struct BuildFamily {
  std::string backend;              // "cpu", "gpu"
  std::string family;
  int instances = 0;                // candidates the tuner uses
  int test_only = 0;                // planted wrong candidates (--include-test-instances)
};

struct BuildContents {
  std::string version;              // cktune version
  std::string gpu_backend;          // "cuda", "hip", "none"
  std::vector<std::string> backends;  // "cpu", and "gpu" when compiled in
  std::vector<std::string> gpu_archs;  // device code in the binary ("sm_90a"; "gfx942", "gfx950")
  std::vector<BuildFamily> families;
  std::string note;                 // why families are empty ("" when they are not)
};

struct DiscoverReport {
  std::vector<GpuEntry> gpus;
  std::string gpu_note;             // why no GPU is listed
  gpu::RuntimeVersions runtime;
  GpuStatusReport smi;
  std::vector<VisibilityVar> visibility;
  std::optional<std::string> cu_num_override;  // CU_NUM, which AITER reads instead of the device's
  std::vector<DeviceKey> device_keys;          // (gfx, cu_num) AITER would key by here
  PythonInfo python;
  AiterInstall aiter;
  std::vector<PythonPackageStatus> packages;   // sglang, vllm, torch, triton
  std::vector<ConfigVar> configs;              // set variables, then AITER's default tables
  BuildContents build;
  std::vector<std::string> verification;       // what is verified where, for this build and these GPUs
  std::vector<std::string> warnings;           // things that will make tuning or table use fail
};

// Gather everything. Never throws for a missing piece; `env` is the environment to analyse.
DiscoverReport discover(const DiscoverOptions& options, const EnvMap& env);

// Warnings derived from the gathered facts (kept separate so tests can check the rules).
std::vector<std::string> derive_warnings(const DiscoverReport& report);

BuildContents build_contents_of_this_binary();

// What has been verified where, as it applies to this build and the GPUs seen (docs/arch/gpu.md, "What is
// verified on AMD"): one line per platform that concerns the user here; the AMD line says plainly that
// nothing has run on AMD hardware.
std::vector<std::string> verification_status(const DiscoverReport& report);

nlohmann::ordered_json to_json(const DiscoverReport& report);
std::string render_text(const DiscoverReport& report);

}  // namespace cktune::discover
