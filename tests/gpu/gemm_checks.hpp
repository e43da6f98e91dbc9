#pragma once
// What the GPU GEMM family tests share: run every instance of a unit that can run a key against the CPU
// reference (fresh random inputs from `seed`), expecting each to pass, and count what happened.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>

#include "cktune/engine/family_unit.hpp"
#include "cktune/engine/policy.hpp"

namespace cktune::testing {

struct InstanceRuns {
  int passed = 0, not_supported = 0, vendor = 0;  // vendor: passed runs of cuBLASLt slots
  std::set<std::string> ran;                      // names of the instances that passed at least once
};

// Every instance of `unit` on `key`: not supported (why_not, or a cuBLASLt heuristic slot the library left
// empty for this shape) is counted, anything else must pass the reference check.
inline void run_every_instance(const FamilyUnit& unit, Backend& backend, const ProblemKey& key, std::uint64_t seed,
                               InstanceRuns& runs) {
  Protocol protocol;
  protocol.rotate = 1;
  auto wl = unit.prepare(key, protocol, seed, backend);
  for (auto& inst : unit.instances(backend)) {
    if (!inst->why_not(key).empty()) {
      ++runs.not_supported;
      continue;
    }
    CheckResult r;
    try {
      r = run_and_check(*inst, *wl, Tolerance::gemm());
    } catch (const NotSupportedError&) {
      ++runs.not_supported;
      continue;
    }
    EXPECT_EQ(r.verdict, Verdict::Passed) << inst->desc().name << " on " << key.to_string() << ": " << r.reason;
    if (r.verdict != Verdict::Passed) continue;
    ++runs.passed;
    runs.ran.insert(inst->desc().name);
    if (inst->desc().provider == Provider::Blaslt) ++runs.vendor;
  }
}

}  // namespace cktune::testing
