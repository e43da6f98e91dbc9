#pragma once
// The process environment as plain data, so that discover's analysis can be tested with a made-up
// environment instead of the real one.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cktune::discover {

using EnvMap = std::map<std::string, std::string>;

// Snapshot of the current process environment.
EnvMap current_environment();

std::optional<std::string> env_value(const EnvMap& env, std::string_view name);

// Variables that decide which GPUs a process sees, in the order they are reported.
inline constexpr std::string_view kVisibilityVariables[] = {
    "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL",
};

struct VisibilityVar {
  std::string name;
  bool set = false;
  std::string value;                  // raw value
  std::vector<std::string> entries;   // comma-separated entries, trimmed ("0", "GPU-8d1f...", "MIG-...")
  bool hides_all = false;             // set but empty, or "-1"/"none"/"NoDevFiles": no device is visible
};

// Parse one visibility variable's value ("0,1", " 2 , 3", "", "-1").
VisibilityVar parse_visibility(std::string_view name, std::optional<std::string> value);

std::vector<VisibilityVar> visibility(const EnvMap& env);

// Every variable whose name starts with `prefix` (e.g. "AITER_CONFIG_"), sorted by name.
std::vector<std::pair<std::string, std::string>> variables_with_prefix(const EnvMap& env, std::string_view prefix);

// Split a ':'-separated list of paths, dropping empty entries ("a.csv::b.csv" -> {a.csv, b.csv}).
std::vector<std::string> split_path_list(std::string_view value);

}  // namespace cktune::discover
