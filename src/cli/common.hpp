#pragma once
// Small helpers shared by the subcommand files: option parsing that several verbs need.
#include <string>
#include <vector>

#include "cktune/formats/family.hpp"

namespace cktune::cli {

// The command line this process was started with, shell-quoted where needed (for provenance).
std::string command_line();
void set_command_line(int argc, char** argv);

// -v count minus -q (0 = default).
int verbosity();
void set_verbosity_level(int level);

// "a8w8_blockscale" -> Family; Error listing the known names otherwise.
Family parse_family(const std::string& name);

// "0,2,5" -> {0,2,5}; Error naming the option otherwise.
std::vector<int> parse_int_list(const std::string& text, const std::string& option);

// "a,b , c" -> {"a","b","c"}.
std::vector<std::string> split_list(const std::string& text);

}  // namespace cktune::cli
