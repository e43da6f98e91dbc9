#include "cktune/engine/policy.hpp"

#include <algorithm>
#include <cmath>

#include "cktune/engine/measure.hpp"
#include "cktune/engine/workload.hpp"
#include "cktune/ref/gemm.hpp"

namespace cktune {

CheckResult Reference::check(const std::uint16_t* out, const Tolerance& tol) const {
  if (sampled_rows.empty()) return check_output(values.data(), out, rows, cols, tol);
  return check_output_rows(values.data(), out, sampled_rows, rows, cols, tol);
}

int rotation_sets(const Protocol& protocol, const DeviceInfo& device, const DevicePolicy& policy,
                  double bytes_per_set) {
  return rotation_sets(protocol, device, policy, bytes_per_set, bytes_per_set);
}

int rotation_sets(const Protocol& protocol, const DeviceInfo& device, const DevicePolicy& policy,
                  double touched_bytes, double stored_bytes) {
  if (protocol.rotate > 0) return protocol.rotate;
  const double touched = std::max(1.0, touched_bytes);
  const int for_cache =
      static_cast<int>(std::ceil(policy.cache_multiple * static_cast<double>(device.l2_bytes) / touched)) + 1;
  const int by_memory = static_cast<int>(std::max(1.0, policy.set_memory_budget / std::max(1.0, stored_bytes)));
  return std::max(1, std::min(std::clamp(for_cache, policy.min_sets, policy.max_sets), by_memory));
}

std::vector<std::int64_t> reference_rows(std::int64_t rows, double macs_per_row, const DevicePolicy& policy,
                                         std::uint64_t seed) {
  if (static_cast<double>(rows) * macs_per_row <= policy.reference_macs_budget || rows <= policy.min_sampled_rows)
    return {};
  const auto affordable = static_cast<std::int64_t>(policy.reference_macs_budget / std::max(1.0, macs_per_row));
  const std::int64_t count = std::min(rows, std::clamp(affordable, policy.min_sampled_rows, policy.max_sampled_rows));
  return sample_rows(rows, count, seed);
}

CheckResult OutputBuffer::check(const Reference& ref, const Tolerance& tol) {
  std::vector<std::uint16_t> host;
  read(host);
  return ref.check(host.data(), tol);
}

CheckResult check_output_now(Workload& workload, const Tolerance& tol) {
  CheckResult r = workload.output().check(workload.reference, tol);
  note_progress();  // the read-back waited for the launches before it
  return r;
}

CheckResult run_and_check(Instance& instance, Workload& workload, const Tolerance& tol) {
  workload.output().poison();
  instance.launch(workload, 0);
  return check_output_now(workload, tol);
}

}  // namespace cktune
