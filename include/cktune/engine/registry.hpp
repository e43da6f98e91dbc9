#pragma once
// What this build contains: instance descriptions per backend and family, without touching a device.
#include <string>
#include <string_view>
#include <vector>

#include "cktune/engine/instance.hpp"
#include "cktune/formats/family.hpp"

namespace cktune {

// Descriptions of every instance a backend offers for a family (empty when none). Needs no device:
// instance tables are plain data.
std::vector<InstanceDesc> list_instances(BackendKind backend, Family family, bool include_test_only = false);

// Aliases a job may name instead of an instance; the worker resolves them on its device:
inline constexpr std::string_view kDefaultAlias = "@default";    // the untuned default heuristic's pick
inline constexpr std::string_view kBaselineAlias = "@baseline";  // the vendor library's own pick (if any)

struct RegistryEntry {
  BackendKind backend = BackendKind::Cpu;
  Family family = Family::A8W8Blockscale;
  int instances = 0;   // excluding test-only ones
  int test_only = 0;
};

// One entry per (compiled backend, family with instances): for discover and `cktune list`.
std::vector<RegistryEntry> build_contents();

}  // namespace cktune
