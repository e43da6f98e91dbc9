#pragma once
// A backend owns a device (the CPU, or one GPU), its candidate instances per family, and how a
// problem's inputs are prepared, checked and timed there.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cktune/tune/instance.hpp"
#include "cktune/tune/fault.hpp"
#include "cktune/tune/measure.hpp"
#include "cktune/verify/check.hpp"

namespace cktune {

struct DeviceInfo {
  std::string backend;     // "cpu" | "gpu"
  std::string name;        // "NVIDIA H100 80GB HBM3", "AMD EPYC ..."
  std::string gfx;         // gfx column: "gfx942", "sm_90", "cpu"
  int cu_num = 0;          // cu_num column: CUs / SMs / cores
  int index = 0;           // device index as seen by this process
  std::string driver;      // driver version text ("" if none)
  std::string runtime;     // runtime version text
  std::uint64_t l2_bytes = 0;
  std::uint64_t memory_bytes = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const DeviceInfo& device() const = 0;
  // Every instance of the family this backend can offer (can_run is asked per problem later).
  virtual std::vector<InstancePtr> instances(Family family) const = 0;
  // Families this backend has instances for.
  virtual std::vector<Family> families() const = 0;
  // The instance the runtime would run for a key without a tuned row (the untuned default heuristic).
  virtual std::string default_instance(const ProblemKey& key) const = 0;
  // The vendor library's own choice for the key (bench's baseline); "" when the backend has none.
  virtual std::string baseline_instance(const ProblemKey& key) const = 0;
  // Inputs for a problem: fresh random data from `seed`, enough rotation sets for the protocol.
  virtual std::unique_ptr<Workload> prepare(const ProblemKey& key, const Protocol& protocol,
                                            std::uint64_t seed) const = 0;
  // Poison the output, run once, compare with the reference.
  virtual CheckResult verify(Instance& instance, Workload& workload, const Tolerance& tol) const = 0;
  // Timer of this device (host clock or GPU events).
  virtual std::unique_ptr<Timer> make_timer(Workload& workload) const = 0;
  // Fault injection (testing only): Hang never returns (spins the device), Wrong corrupts and Partial
  // re-poisons part of the output written by the launch just made.
  virtual void inject_fault(Workload& workload, FaultKind kind) const = 0;
};

// The backend named "cpu" or "gpu" (device index for gpu). Throws Error with a hint when unavailable.
std::unique_ptr<Backend> make_backend(const std::string& name, int device_index = 0);

// Backends compiled into this build ("cpu", and "gpu" when built with CKTUNE_GPU=cuda|hip).
std::vector<std::string> compiled_backends();

}  // namespace cktune
