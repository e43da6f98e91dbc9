#include "cktune/engine/registry.hpp"

#include <algorithm>

#include "cktune/engine/family_unit.hpp"

namespace cktune {

const FamilyUnit* find_family_unit(Family family, BackendKind backend) {
  for (const FamilyEntry& e : family_registry())
    if (e.family == family && e.backend == backend) return &e.unit();
  return nullptr;
}

std::vector<InstanceDesc> list_instances(BackendKind backend, Family family, bool include_test_only) {
  const FamilyUnit* unit = find_family_unit(family, backend);
  if (unit == nullptr) return {};
  std::vector<InstanceDesc> all = unit->describe();
  if (!include_test_only) std::erase_if(all, [](const InstanceDesc& d) { return d.test_only; });
  return all;
}

std::vector<RegistryEntry> build_contents() {
  std::vector<RegistryEntry> out;
  for (BackendKind b : compiled_backends())
    for (Family f : kAllFamilies) {
      auto all = list_instances(b, f, true);
      if (all.empty()) continue;
      RegistryEntry e;
      e.backend = b;
      e.family = f;
      for (const auto& d : all) (d.test_only ? e.test_only : e.instances)++;
      out.push_back(e);
    }
  return out;
}

}  // namespace cktune
