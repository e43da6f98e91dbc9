#pragma once
// Small helpers shared by the subcommand files: option parsing that several verbs need.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cktune/compare/compare.hpp"
#include "cktune/formats/family.hpp"

namespace cktune::cli {

// The command line this process was started with, shell-quoted where needed (for provenance).
std::string command_line();
void set_command_line(int argc, char** argv);

// --group-by COLS and --models NAME@TP,... of `compare` and `report` (docs/cli/compare.md), and their
// translation into CompareOptions (the presets are planned there; Error for an unknown one).
struct GroupingArgs {
  std::vector<std::string> group_by;
  std::vector<std::string> models;
};
void add_grouping_options(CLI::App* cmd, GroupingArgs& args);
void apply_grouping(const GroupingArgs& args, CompareOptions& options);

// -v count minus -q (0 = default).
int verbosity();
void set_verbosity_level(int level);

// "a8w8_blockscale" -> Family; Error listing the known names otherwise.
Family parse_family(const std::string& name);

// "0,2,5" -> {0,2,5}; Error naming the option otherwise.
std::vector<int> parse_int_list(const std::string& text, const std::string& option);

// "a,b , c" -> {"a","b","c"}.
std::vector<std::string> split_list(const std::string& text);

// CLI11 validators for numeric options, checked while parsing, before anything runs. Each rejects NaN and
// infinities (std::stod accepts "nan" and "inf") with a message that names the accepted range.
//   positive_finite():     > 0          (times, counts, sizes where 0 means nothing)
//   non_negative_finite(): >= 0         (thresholds, delays, margins)
//   fraction_0_1():        0 <= x <= 1  (ratios such as an error-ratio limit)
CLI::Validator positive_finite();
CLI::Validator non_negative_finite();
CLI::Validator fraction_0_1();

// The closest of `candidates` to `word` by edit distance, or "" when none is close enough to be a likely
// typo (distance at most 2, and at most a third of the word's length, rounded up).
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace cktune::cli
