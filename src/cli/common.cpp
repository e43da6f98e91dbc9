#include "cli/common.hpp"

#include <fmt/format.h>

#include "cktune/core/error.hpp"

namespace cktune::cli {

namespace {
std::string g_command_line;
int g_verbosity = 0;

std::string quote(const std::string& s) {
  if (!s.empty() && s.find_first_of(" \t\n'\"\\$`;&|<>*?()") == std::string::npos) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}
}  // namespace

std::string command_line() { return g_command_line; }

void set_command_line(int argc, char** argv) {
  g_command_line.clear();
  for (int i = 0; i < argc; ++i) g_command_line += (i ? " " : "") + quote(argv[i]);
}

int verbosity() { return g_verbosity; }
void set_verbosity_level(int level) { g_verbosity = level; }

Family parse_family(const std::string& name) {
  if (auto f = family_from_name(name)) return *f;
  std::vector<std::string_view> names;
  for (Family f : kAllFamilies) names.push_back(family_name(f));
  throw Error(fmt::format("unknown family '{}'", name), fmt::format("use one of: {}", fmt::join(names, ", ")));
}

std::vector<int> parse_int_list(const std::string& text, const std::string& option) {
  std::vector<int> out;
  for (const auto& item : split_list(text)) {
    try {
      size_t pos = 0;
      int v = std::stoi(item, &pos);
      if (pos != item.size() || v < 0) throw std::invalid_argument(item);
      out.push_back(v);
    } catch (const std::exception&) {
      throw Error(fmt::format("{}: '{}' is not a non-negative whole number", option, item),
                  fmt::format("write e.g. {} 0,2,5", option));
    }
  }
  return out;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

}  // namespace cktune::cli
