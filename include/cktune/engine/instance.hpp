#pragma once
// Candidates. Describe first, run second: listing, filtering, naming and reporting use InstanceDesc
// (plain data); only the measurement routine touches Instance::launch.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cktune/core/error.hpp"
#include "cktune/core/names.hpp"
#include "cktune/formats/family.hpp"
#include "cktune/formats/problem.hpp"

namespace cktune {

// Where an instance runs.
enum class BackendKind { Cpu, Gpu };
inline constexpr EnumName<BackendKind> kBackendKindNames[] = {{BackendKind::Cpu, "cpu"}, {BackendKind::Gpu, "gpu"}};
constexpr std::string_view to_string(BackendKind b) { return enum_text(kBackendKindNames, b); }
constexpr std::optional<BackendKind> backend_kind_from_string(std::string_view s) {
  return enum_from_text(kBackendKindNames, s);
}

// Who provides an instance: AITER's libtype column. cktune's own kernels carry cktune names and never
// pass for AITER's (aiter-formats.md §2).
enum class Provider {
  CktuneCpu,  // cktune's CPU implementations
  Cktune,     // cktune's hand-written GPU kernels
  Blaslt,     // the vendor library (cuBLASLt / hipBLASLt)
  Ck,         // AITER's CK instances (libtype ck): what AITER can build from a tuned row
  CkTile,     // AITER's CK-tile instances (libtype cktile)
};
inline constexpr EnumName<Provider> kProviderNames[] = {{Provider::CktuneCpu, "cktune_cpu"},
                                                        {Provider::Cktune, "cktune"},
                                                        {Provider::Blaslt, "blaslt"},
                                                        {Provider::Ck, "ck"},
                                                        {Provider::CkTile, "cktile"}};
constexpr std::string_view to_string(Provider p) { return enum_text(kProviderNames, p); }
constexpr std::optional<Provider> provider_from_string(std::string_view s) { return enum_from_text(kProviderNames, s); }
// cktune's own instances rank before a vendor library's in the stable tie rule.
constexpr bool is_own(Provider p) { return p == Provider::CktuneCpu || p == Provider::Cktune; }
// Can AITER load a tuned row naming this provider's kernel? Only its own CK / CK-tile instances: it
// builds exactly the kernels the rows name, from its own lists (docs/arch/aiter.md).
constexpr bool aiter_can_load(Provider p) { return p == Provider::Ck || p == Provider::CkTile; }

// Thrown by launch() when the instance turns out not to apply to the prepared problem (for example a
// vendor heuristic slot the library left empty for this shape): recorded as "not supported".
class NotSupportedError : public Error {
 public:
  using Error::Error;
};

struct InstanceDesc {
  int id = 0;                   // kernelId column: stable per (family, provider)
  std::string name;             // stable, built from the parameters by one function per family unit; public API
  Family family = Family::A8W8Blockscale;
  Provider provider = Provider::Cktune;  // libtype column
  BackendKind backend = BackendKind::Cpu;
  int split_k = 1;              // literal split count (1 = none); cktune's meaning in its tables
  std::vector<std::pair<std::string, std::string>> params;  // for listing and filtering
  bool test_only = false;       // planted wrong candidates: only with --include-test-instances
  bool baseline_only = false;   // a vendor baseline that bench may run but tune never picks (it reads
                                // a layout the family's tables cannot hand it: a8w8_bpreshuffle's cuBLASLt)

  // Value of a parameter ("" when the instance has none of that name).
  std::string param(std::string_view key) const {
    for (const auto& [k, v] : params)
      if (k == key) return v;
    return {};
  }
};

class Workload;

class Instance {
 public:
  explicit Instance(InstanceDesc desc) : desc_(std::move(desc)) {}
  virtual ~Instance() = default;
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  const InstanceDesc& desc() const { return desc_; }
  // Ask before running: empty = can run, else why not ("not supported" is a result, not an error).
  virtual std::string why_not(const ProblemKey& key) const = 0;
  // Asked by tune only (Job::skip_redundant), after why_not: non-empty = on this shape the instance would run exactly
  // as another candidate does (an equal twin), so timing it only costs tune time. A dispatch still runs it: a row
  // tuned at one M serves the M values the runtime's lookup sends to it, where its kernel may be such a twin.
  virtual std::string redundant(const ProblemKey& key) const {
    (void)key;
    return {};
  }
  // Run once on input set `set` writing the workload's output. Asynchronous on GPUs; no allocation.
  virtual void launch(Workload& workload, int set) = 0;
  // A pipeline of several launches (fused MoE: sorting, stage 1, stage 2) may name its parts; after a
  // candidate is timed whole, each part is timed alone with the same protocol (CandidateResult::part_us),
  // reading what the whole launch left in the workload. 0 = not a pipeline.
  virtual int parts() const { return 0; }
  virtual std::string part_name(int) const { return {}; }
  virtual void launch_part(Workload& workload, int set, int part) { (void)part; launch(workload, set); }

 private:
  InstanceDesc desc_;
};

using InstancePtr = std::unique_ptr<Instance>;

}  // namespace cktune
