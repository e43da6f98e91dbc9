#pragma once
// Python package versions as pip prints them ("0.5.6", "0.5.6.post2", "0.5.5rc1", "0.4.10+rocm6.4"),
// ordered the way PEP 440 orders them for the cases discover meets: release numbers, then
// dev < a < b < rc < final < post. Local labels ("+rocm6.4") are ignored for ordering.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cktune::discover {

struct PackageVersion {
  std::vector<long> release;   // 0.5.6 -> {0, 5, 6}
  int phase = 4;               // 0 dev, 1 alpha, 2 beta, 3 rc, 4 final release, 5 post
  long phase_number = 0;       // rc1 -> 1, post2 -> 2
  std::string local;           // after '+', kept for display
};

// nullopt when `text` does not start with a release number.
std::optional<PackageVersion> parse_version(std::string_view text);

// <0, 0, >0 like strcmp; nullopt when either side does not parse.
std::optional<int> compare_versions(std::string_view a, std::string_view b);

// Minimum versions the sglang-on-AITER playbook asks for.
inline constexpr std::string_view kMinSglangVersion = "0.5.6";
inline constexpr std::string_view kMinAiterCommit = "303a583c89fe392a39cad7e45d616cc43bde3278";

}  // namespace cktune::discover
