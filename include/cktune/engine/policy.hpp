#pragma once
// The policies every family unit and the evaluation share, written once with the device's numbers
// (DevicePolicy) as parameters: how many input sets to rotate, how much of the reference to compute,
// and how a candidate's output is checked (poison, run, read back, compare, all cells written).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cktune/engine/backend.hpp"
#include "cktune/engine/instance.hpp"
#include "cktune/engine/measure.hpp"
#include "cktune/engine/workload.hpp"
#include "cktune/verify/check.hpp"

namespace cktune {

// Input sets for a problem whose one set takes `bytes_per_set`: the --rotate option when given, else
// enough sets to exceed the cache `cache_multiple` times, clamped to the policy and memory budget.
int rotation_sets(const Protocol& protocol, const DeviceInfo& device, const DevicePolicy& policy,
                  double bytes_per_set);
// The same when one launch reads less than a set holds (fused MoE at a few tokens reads only the routed
// experts' weights): `touched_bytes` decides how many sets exceed the cache, `stored_bytes` what they cost
// in memory.
int rotation_sets(const Protocol& protocol, const DeviceInfo& device, const DevicePolicy& policy,
                  double touched_bytes, double stored_bytes);

// Which output rows the reference covers: empty = every row (affordable), else rows sampled over
// [0, rows) (first and last included) so that the reference stays within the policy's budget.
std::vector<std::int64_t> reference_rows(std::int64_t rows, double macs_per_row, const DevicePolicy& policy,
                                         std::uint64_t seed);

// The workload's reference, the same way for every family: copied from `reuse` (an earlier prepare of the
// same key and seed) when given; else every row when affordable (`full(out)` fills [rows, cols]), else
// the sampled rows (`sampled(rows, out)` fills [rows.size(), cols]).
template <class Full, class Sampled>
void make_reference(Reference& ref, const Reference* reuse, std::int64_t rows, std::int64_t cols, double macs_per_row,
                    const DevicePolicy& policy, std::uint64_t seed, Full&& full, Sampled&& sampled) {
  if (reuse != nullptr) {
    ref = *reuse;
    return;
  }
  ref.rows = rows;
  ref.cols = cols;
  ref.sampled_rows = reference_rows(rows, macs_per_row, policy, seed);
  if (ref.sampled_rows.empty()) {
    ref.values.resize(static_cast<std::size_t>(rows * cols));
    full(ref.values.data());
  } else {
    ref.values.resize(ref.sampled_rows.size() * static_cast<std::size_t>(cols));
    sampled(ref.sampled_rows, ref.values.data());
  }
}

// Checks what the output holds now against the reference (reads back from the device).
CheckResult check_output_now(Workload& workload, const Tolerance& tol);

// Poison the output, launch once on set 0, check: the verification of a candidate before timing.
CheckResult run_and_check(Instance& instance, Workload& workload, const Tolerance& tol);

}  // namespace cktune
