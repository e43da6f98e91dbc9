#pragma once
// Where a Python package's source came from when it sits in a git checkout (AITER dev installs):
// commit, and whether that commit descends from the minimum the sglang playbook requires.
#include "cktune/core/names.hpp"
#include <string>
#include <string_view>

namespace cktune::discover {

enum class Ancestry { Yes, No, Unknown };
using AncestryName = EnumName<Ancestry>;
inline constexpr AncestryName kAncestryNames[] = {
    {Ancestry::Yes, "yes"},
    {Ancestry::No, "no"},
    {Ancestry::Unknown, "unknown"},
};
std::string_view to_string(Ancestry a);

struct GitInfo {
  bool in_repo = false;        // `dir` is inside a git work tree
  std::string toplevel;        // work tree root
  std::string commit;          // HEAD, 40 hex digits
  std::string describe;        // `git describe --tags --always --dirty`
  bool shallow = false;
  Ancestry descends = Ancestry::Unknown;  // HEAD descends from (or is) `minimum`
  std::string ancestry_note;   // why Unknown ("commit not in this clone (shallow clone?)", "git not found")
  std::string error;           // why in_repo is false, when it is not simply "not a checkout"
};

// Ask git (with a timeout) about the checkout containing `dir`. Never throws.
GitInfo git_info(const std::string& dir, std::string_view minimum, double timeout_s = 10.0);

}  // namespace cktune::discover
