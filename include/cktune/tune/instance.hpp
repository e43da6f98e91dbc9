#pragma once
// Candidates. Describe first, run second: listing, filtering, naming and reporting use InstanceDesc
// (plain data); only the measurement routine touches Instance::launch.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cktune/core/error.hpp"
#include "cktune/formats/family.hpp"
#include "cktune/tune/problem.hpp"

namespace cktune {

// Thrown by launch() when the instance turns out not to apply to the prepared problem (for example a
// vendor heuristic slot the library left empty for this shape): recorded as "not supported".
class NotSupportedError : public Error {
 public:
  using Error::Error;
};

struct InstanceDesc {
  int id = 0;                   // kernelId column: stable per (family, libtype)
  std::string name;             // stable, built from the parameters by one function per backend; public API
  Family family = Family::A8W8Blockscale;
  std::string libtype;          // libtype column: "cktune_cpu", "cktune", "blaslt"
  std::string backend;          // "cpu" or "gpu": where it runs
  int split_k = 1;              // literal split count (1 = none); cktune's meaning in its tables
  std::vector<std::pair<std::string, std::string>> params;  // for listing and filtering
  bool test_only = false;       // planted wrong candidates: only with --include-test-instances
};

// Backend-specific prepared inputs of one problem (rotation sets, output, reference).
class Workload {
 public:
  virtual ~Workload() = default;
  virtual int sets() const = 0;  // number of input sets rotated through
};

class Instance {
 public:
  explicit Instance(InstanceDesc desc) : desc_(std::move(desc)) {}
  virtual ~Instance() = default;
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  const InstanceDesc& desc() const { return desc_; }
  // Ask before running: empty = can run, else why not ("not supported" is a result, not an error).
  virtual std::string why_not(const ProblemKey& key) const = 0;
  // Run once on input set `set` writing the workload's output. Asynchronous on GPUs; no allocation.
  virtual void launch(Workload& workload, int set) = 0;

 private:
  InstanceDesc desc_;
};

using InstancePtr = std::unique_ptr<Instance>;

}  // namespace cktune
