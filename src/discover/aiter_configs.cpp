#include "cktune/discover/aiter_configs.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/formats/csv.hpp"

namespace cktune::discover {

namespace {
std::optional<long> parse_long(std::string_view s) {
  long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<Family> family_of_variable(std::string_view name) {
  for (Family f : kAllFamilies)
    if (spec(f).env_var == name) return f;
  return std::nullopt;
}
}  // namespace

ConfigFile analyse_config_file(const std::string& path, std::optional<Family> variable_family,
                               const std::vector<DeviceKey>& devices) {
  ConfigFile f;
  f.path = path;
  f.matching.assign(devices.size(), 0);
  std::error_code ec;
  f.exists = std::filesystem::is_regular_file(path, ec);
  if (!f.exists) {
    f.error = std::filesystem::exists(path, ec) ? "not a regular file" : "no such file";
    return f;
  }
  if (auto fam = family_from_file_name(path)) {
    f.family = fam;
    f.family_from = "file name";
  } else if (variable_family) {
    f.family = variable_family;
    f.family_from = "variable";
  }
  CsvTable t;
  try {
    t = read_csv(path);
  } catch (const Error& e) {
    f.error = e.what();
    return f;
  }
  f.rows = t.rows.size();
  auto gfx_col = t.column("gfx");
  auto cu_col = t.column("cu_num");
  f.has_gfx = gfx_col.has_value();
  f.has_cu_num = cu_col.has_value();
  f.tuned = t.column("us").has_value();

  // The key columns of the family that are present in this header, for the duplicate count.
  std::vector<size_t> key_idx;
  if (f.family) {
    for (auto name : key_columns(*f.family))
      if (auto c = t.column(name)) key_idx.push_back(*c);
  }
  std::map<std::pair<std::string, long>, std::size_t> per_key;
  std::set<std::vector<std::string>> seen;
  for (const auto& row : t.rows) {
    std::string gfx = gfx_col ? row[*gfx_col] : std::string();
    long cu = -1;
    if (cu_col) cu = parse_long(row[*cu_col]).value_or(-1);
    ++per_key[{gfx, cu}];
    for (size_t d = 0; d < devices.size(); ++d) {
      // A table without gfx is keyed by cu_num alone (AITER's legacy lookup).
      if (cu_col && cu == devices[d].cu_num && (!gfx_col || gfx == devices[d].gfx)) ++f.matching[d];
    }
    if (!key_idx.empty()) {
      std::vector<std::string> key = {gfx, cu_col ? row[*cu_col] : std::string()};
      for (size_t c : key_idx) key.push_back(row[c]);
      if (!seen.insert(std::move(key)).second) ++f.duplicate_keys;
    }
  }
  for (const auto& [k, n] : per_key) f.keys.push_back({k.first, k.second, n});
  return f;
}

std::vector<ConfigVar> analyse_config_variables(const EnvMap& env, const std::vector<DeviceKey>& devices) {
  std::vector<ConfigVar> out;
  for (const auto& [name, value] : variables_with_prefix(env, "AITER_CONFIG_")) {
    ConfigVar v;
    v.name = name;
    v.value = value;
    v.family = family_of_variable(name);
    v.source = "environment";
    for (const auto& path : split_path_list(value)) v.files.push_back(analyse_config_file(path, v.family, devices));
    out.push_back(std::move(v));
  }
  return out;
}

std::vector<ConfigVar> analyse_default_tables(const std::string& aiter_dir, const EnvMap& env,
                                              const std::vector<DeviceKey>& devices) {
  std::vector<ConfigVar> out;
  namespace fs = std::filesystem;
  fs::path configs = fs::path(aiter_dir) / "configs";
  std::error_code ec;
  if (aiter_dir.empty() || !fs::is_directory(configs, ec)) return out;
  // model_configs/ files, sorted so the report is stable.
  std::vector<fs::path> model_files;
  for (fs::directory_iterator it(configs / "model_configs", ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".csv") model_files.push_back(it->path());
  }
  std::sort(model_files.begin(), model_files.end());
  for (Family fam : kAllFamilies) {
    const auto& s = spec(fam);
    if (env.count(std::string(s.env_var))) continue;  // the variable decides; reported above
    ConfigVar v;
    v.name = std::string(s.env_var);
    v.family = fam;
    v.source = "default";
    fs::path base = configs / std::string(s.tuned_file);
    if (fs::exists(base, ec)) v.files.push_back(analyse_config_file(base.string(), fam, devices));
    for (const auto& m : model_files) {
      std::string name = m.filename().string();
      if (name.find("untuned") != std::string::npos) continue;
      if (family_from_file_name(name) == fam) v.files.push_back(analyse_config_file(m.string(), fam, devices));
    }
    if (v.files.empty()) continue;
    for (size_t i = 0; i < v.files.size(); ++i) v.value += (i ? ":" : "") + v.files[i].path;
    out.push_back(std::move(v));
  }
  return out;
}

std::vector<DeviceKey> device_keys(const std::vector<std::pair<std::string, int>>& gfx_cu, const EnvMap& env) {
  std::optional<long> override_cu;
  if (auto v = env_value(env, "CU_NUM")) override_cu = parse_long(*v);
  std::vector<DeviceKey> keys;
  for (const auto& [gfx, cu] : gfx_cu) {
    DeviceKey k{gfx, override_cu.value_or(cu)};
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  }
  return keys;
}

}  // namespace cktune::discover
