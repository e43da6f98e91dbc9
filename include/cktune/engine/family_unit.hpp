#pragma once
// Kernel families are plug-ins. A family supplies, per backend, one FamilyUnit: its instance
// descriptions, how a workload is prepared (inputs, reference), its untuned default, the vendor's own
// pick where a vendor library exists, and its tuned-row writer. The registry
// (src/registry/families.def) has one line per (family, backend); nothing else names a family unit.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cktune/engine/backend.hpp"
#include "cktune/engine/instance.hpp"
#include "cktune/engine/job.hpp"
#include "cktune/engine/workload.hpp"
#include "cktune/formats/cells.hpp"

namespace cktune {

class FamilyUnit {
 public:
  virtual ~FamilyUnit() = default;
  // Every instance the unit offers, as plain data (no device needed).
  virtual std::vector<InstanceDesc> describe() const = 0;
  // The runnable instances, in describe() order, for a device of this unit's backend.
  virtual std::vector<InstancePtr> instances(Backend& backend) const = 0;
  // The instance the runtime runs for a key without a tuned row (the untuned default heuristic).
  virtual std::string default_instance(const ProblemKey& key, const Backend& backend) const = 0;
  // The vendor library's own choice for the key (bench's baseline); "" when there is none.
  virtual std::string baseline_instance(const ProblemKey&, const Backend&) const { return {}; }
  // Fresh random inputs from `seed` (never zeros), rotation sets, the output and the reference. With
  // `reuse` (the reference of an earlier prepare of the same key and seed) the reference is copied
  // rather than computed again: new buffers, the same values.
  virtual std::unique_ptr<Workload> prepare(const ProblemKey& key, const Protocol& protocol, std::uint64_t seed,
                                            Backend& backend, const Reference* reuse = nullptr) const = 0;
  // The tuned row for a winner, in the family's tuned schema (tuned_row.hpp has the shared writers).
  virtual std::vector<std::string> tuned_row(const ProblemKey& key, const DeviceInfo& device,
                                             const CandidateResult& winner, const InstanceDesc& desc) const = 0;
};

struct FamilyEntry {
  Family family;
  BackendKind backend;
  const FamilyUnit& (*unit)();
};

// Every (family, backend) unit compiled into this build (defined by src/registry/registry.cpp).
std::span<const FamilyEntry> family_registry();

// The unit for (family, backend), or nullptr when this build has none.
const FamilyUnit* find_family_unit(Family family, BackendKind backend);

}  // namespace cktune
