#pragma once
// AITER_CONFIG_* variables and the tuned tables they name: does each file exist, how many rows does it
// hold, and how many of them can this device ever hit (rows are keyed by gfx and cu_num; a table tuned
// on another machine, or with a different CU_NUM, silently never matches).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cktune/discover/environment.hpp"
#include "cktune/formats/family.hpp"

namespace cktune::discover {

// One (gfx, cu_num) a table row can be keyed by.
struct DeviceKey {
  std::string gfx;   // "gfx942", "sm_90"
  long cu_num = 0;
  auto operator<=>(const DeviceKey&) const = default;
};

struct KeyRows {
  std::string gfx;   // "" for rows of a table without a gfx column
  long cu_num = -1;  // -1 when the table has no cu_num column (untuned)
  std::size_t rows = 0;
};

struct ConfigFile {
  std::string path;
  bool exists = false;
  std::string error;                  // unreadable or malformed (AITER would fail on it too)
  std::optional<Family> family;       // from the file name, else from the variable
  std::string family_from;            // "file name", "variable", ""
  bool tuned = false;                 // the header has a `us` column
  bool has_gfx = false;               // false: legacy table keyed by cu_num alone
  bool has_cu_num = false;
  std::size_t rows = 0;
  std::vector<KeyRows> keys;          // rows per (gfx, cu_num), sorted
  std::vector<std::size_t> matching;  // rows that match each of the `devices` passed in (same order)
  std::size_t duplicate_keys = 0;     // key (gfx, cu_num + family key columns, exact text) seen more than once
};

struct ConfigVar {
  std::string name;                   // "AITER_CONFIG_GEMM_A8W8_BLOCKSCALE"
  std::string value;
  std::optional<Family> family;       // the family whose env var this is (nullopt: not one AITER documents)
  std::string source;                 // "environment", or "default" for AITER's shipped tables
  std::vector<ConfigFile> files;
};

// Analyse one table file for the given device keys. Never throws: problems go to `error`.
ConfigFile analyse_config_file(const std::string& path, std::optional<Family> variable_family,
                               const std::vector<DeviceKey>& devices);

// Every AITER_CONFIG_* variable set in `env`, each file analysed.
std::vector<ConfigVar> analyse_config_variables(const EnvMap& env, const std::vector<DeviceKey>& devices);

// The tables AITER uses for families whose variable is unset: <aiter>/configs/<tuned file> and the
// model_configs/ files for that family (AITER merges them at start-up). `aiter_dir` is the package folder.
std::vector<ConfigVar> analyse_default_tables(const std::string& aiter_dir, const EnvMap& env,
                                              const std::vector<DeviceKey>& devices);

// The (gfx, cu_num) this process's AITER would key by for each device: `CU_NUM` in the environment
// overrides the device's cu_num, as AITER's runtime does.
std::vector<DeviceKey> device_keys(const std::vector<std::pair<std::string, int>>& gfx_cu, const EnvMap& env);

}  // namespace cktune::discover
