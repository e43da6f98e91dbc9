#pragma once
// A backend is a device (the host CPU, or one GPU) and what every family needs from it: its
// description, its timer, the numbers the shared policies are sized by, and a way to hang it (fault
// injection). It knows nothing about families: those are plug-ins (family_unit.hpp).
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "cktune/core/device.hpp"
#include "cktune/engine/instance.hpp"
#include "cktune/engine/measure.hpp"

namespace cktune {

// The device's numbers for the shared policies (policy.hpp). One place per backend, no family's.
struct DevicePolicy {
  // Largest reference (multiply-adds) computed over every output row; beyond it rows are sampled.
  double reference_macs_budget = 3e8;
  std::int64_t min_sampled_rows = 8;
  std::int64_t max_sampled_rows = 64;
  // Rotation: enough input sets that one pass over them is `cache_multiple` times the last-level
  // cache (so weights come from memory, not cache), within [min_sets, max_sets] and `set_memory_budget`.
  double cache_multiple = 2.0;
  int min_sets = 2;
  int max_sets = 8;
  double set_memory_budget = 1e9;  // bytes all rotation sets together may take
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual BackendKind kind() const = 0;
  virtual const DeviceInfo& device() const = 0;
  virtual const DevicePolicy& policy() const = 0;
  // Timer of this device (GPU events, or the host clock); its name goes into the protocol string.
  virtual std::unique_ptr<Timer> make_timer() = 0;
  virtual std::string_view timer_name() const = 0;
  // Fault injection (testing only): occupy the device forever, the way a kernel that never ends does.
  [[noreturn]] virtual void hang() = 0;
};

// The backend of `kind` on device `index`. Throws Error with a hint when this build or machine has none.
std::unique_ptr<Backend> make_backend(BackendKind kind, int device_index = 0);

// Backends compiled into this build (Cpu, and Gpu when built with CKTUNE_GPU=cuda|hip).
std::vector<BackendKind> compiled_backends();

}  // namespace cktune
