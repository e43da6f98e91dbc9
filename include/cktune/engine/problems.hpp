#pragma once
// The problems of a run: the keys of an untuned (or tuned) table.
#include <optional>
#include <string>
#include <vector>

#include "cktune/formats/family.hpp"
#include "cktune/formats/problem.hpp"

namespace cktune {

// Problems of an untuned (or tuned) table, deduplicated, in file order; the family from the option,
// else the file name, else the header. Throws InputError naming file:line:col for bad cells.
std::vector<ProblemKey> load_problems(const std::string& path, std::optional<Family>& family);

}  // namespace cktune
