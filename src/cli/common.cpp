#include "cli/common.hpp"

#include <algorithm>
#include <cmath>

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

namespace {
// A validator from a predicate on the parsed double. `shown` is what --help prints after the type
// ("FLOAT:>= 0"); `what` describes the accepted values in the error message.
CLI::Validator number_check(const std::string& name, const std::string& shown, const std::string& what,
                            bool (*ok)(double)) {
  return CLI::Validator(
      [what, ok](std::string& text) -> std::string {
        double v = 0;
        size_t pos = 0;
        try {
          v = std::stod(text, &pos);
        } catch (const std::exception&) {
          return fmt::format("'{}' is not a number (expected {})", text, what);
        }
        if (pos != text.size()) return fmt::format("'{}' is not a number (expected {})", text, what);
        if (!std::isfinite(v)) return fmt::format("'{}' is not a finite number (expected {})", text, what);
        if (!ok(v)) return fmt::format("{} is out of range (expected {})", text, what);
        return {};
      },
      shown, name);
}
}  // namespace

CLI::Validator positive_finite() {
  return number_check("POSITIVE", "> 0", "a number > 0", [](double v) { return v > 0; });
}
CLI::Validator non_negative_finite() {
  return number_check("NON_NEGATIVE", ">= 0", "a number >= 0", [](double v) { return v >= 0; });
}
CLI::Validator fraction_0_1() {
  return number_check("FRACTION", "0..1", "a number from 0 to 1", [](double v) { return v >= 0 && v <= 1; });
}

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  // Levenshtein distance with one rolling row; inputs are short command and flag names.
  auto distance = [](const std::string& a, const std::string& b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      size_t diag = row[0];
      row[0] = i;
      for (size_t j = 1; j <= b.size(); ++j) {
        size_t up = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
        diag = up;
      }
    }
    return row[b.size()];
  };
  std::string best;
  size_t best_d = SIZE_MAX;
  for (const auto& c : candidates) {
    size_t d = distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  const size_t limit = std::min<size_t>(2, (word.size() + 2) / 3);
  return best_d <= limit && best_d > 0 ? best : std::string();
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

void add_grouping_options(CLI::App* cmd, GroupingArgs& args) {
  cmd->add_option("--group-by", args.group_by,
                  "Key columns the per-group breakdown groups by (e.g. K, or N,K; default: every key column but "
                  "M/token)")
      ->delimiter(',');
  cmd->add_option("--models", args.models,
                  "Per-model summary over NAME@TP presets (e.g. llama-4-maverick@4,deepseek-v3@8): a shape is a "
                  "model's when its N,K (MoE: its configuration) is one of the model's layers at that TP")
      ->delimiter(',');
}

void apply_grouping(const GroupingArgs& args, CompareOptions& options) {
  options.group_by = args.group_by;
  options.models.clear();
  for (const auto& m : args.models) options.models.push_back(model_shapes(m));
}

}  // namespace cktune::cli
