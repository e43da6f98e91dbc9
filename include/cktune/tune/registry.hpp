#pragma once
// What this build contains: instance descriptions per backend and family, without touching a device.
#include <string>
#include <vector>

#include "cktune/formats/family.hpp"
#include "cktune/tune/instance.hpp"

namespace cktune {

// Descriptions of every instance a backend offers for a family (empty when none).
// backend: "cpu" or "gpu". Needs no device: GPU instance tables are plain data.
std::vector<InstanceDesc> list_instances(const std::string& backend, Family family, bool include_test_only = false);

// Aliases a job may name instead of an instance; the worker resolves them on its device:
inline constexpr std::string_view kDefaultAlias = "@default";    // the untuned default heuristic's pick
inline constexpr std::string_view kBaselineAlias = "@baseline";  // the vendor library's own pick (if any)

struct RegistryEntry {
  std::string backend;
  Family family;
  int instances = 0;   // excluding test-only ones
  int test_only = 0;
};

// One entry per (compiled backend, family with instances): for discover and `cktune list`.
std::vector<RegistryEntry> build_contents();

}  // namespace cktune
