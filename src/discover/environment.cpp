#include "cktune/discover/environment.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>

extern char** environ;  // NOLINT: POSIX

namespace cktune::discover {

namespace {
std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}
}  // namespace

EnvMap current_environment() {
  EnvMap env;
  for (char** e = environ; e && *e; ++e) {
    std::string_view entry(*e);
    auto eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    env.emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
  }
  return env;
}

std::optional<std::string> env_value(const EnvMap& env, std::string_view name) {
  auto it = env.find(std::string(name));
  if (it == env.end()) return std::nullopt;
  return it->second;
}

VisibilityVar parse_visibility(std::string_view name, std::optional<std::string> value) {
  VisibilityVar v;
  v.name = std::string(name);
  if (!value) return v;
  v.set = true;
  v.value = *value;
  std::string_view rest = *value;
  while (true) {
    auto comma = rest.find(',');
    auto entry = trim(rest.substr(0, comma));
    if (!entry.empty()) v.entries.emplace_back(entry);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  // The CUDA runtime stops at the first invalid index; "-1" is the common way to hide every device.
  v.hides_all = v.entries.empty() || v.entries.front() == "-1" || v.entries.front() == "none" ||
                v.entries.front() == "NoDevFiles";
  return v;
}

std::vector<VisibilityVar> visibility(const EnvMap& env) {
  std::vector<VisibilityVar> out;
  for (auto name : kVisibilityVariables) out.push_back(parse_visibility(name, env_value(env, name)));
  return out;
}

std::vector<std::pair<std::string, std::string>> variables_with_prefix(const EnvMap& env, std::string_view prefix) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [k, v] : env) {
    if (k.size() >= prefix.size() && std::string_view(k).substr(0, prefix.size()) == prefix) out.emplace_back(k, v);
  }
  return out;  // std::map iterates in name order
}

std::vector<std::string> split_path_list(std::string_view value) {
  std::vector<std::string> out;
  while (true) {
    auto colon = value.find(':');
    auto entry = trim(value.substr(0, colon));
    if (!entry.empty()) out.emplace_back(entry);
    if (colon == std::string_view::npos) break;
    value.remove_prefix(colon + 1);
  }
  return out;
}

}  // namespace cktune::discover
