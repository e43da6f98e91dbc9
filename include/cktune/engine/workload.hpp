#pragma once
// A prepared problem: input sets on the device, one output buffer, and the expected output. The
// engine verifies every candidate through this interface alone (poison, launch, read back, compare),
// so the check that guards a result is the same code for every family and backend.
#include <cstdint>
#include <vector>

#include "cktune/engine/fault.hpp"
#include "cktune/verify/check.hpp"

namespace cktune {

// The expected bf16 [rows, cols] output for the inputs of every set (all sets hold the same values at
// other addresses, so any launch's output can be checked against it).
struct Reference {
  std::int64_t rows = 0, cols = 0;
  std::vector<float> values;                // [rows, cols], or [sampled_rows.size(), cols]
  std::vector<std::int64_t> sampled_rows;   // empty = every row is in `values`
  // A family's checked intermediate for the same rows (fused MoE: the stage-1 output of those tokens,
  // [rows, topk, inter]); empty when the family checks only the output.
  std::vector<float> intermediate;
  // Compares a full [rows, cols] bf16 output (the all-written scan always covers every cell).
  CheckResult check(const std::uint16_t* out, const Tolerance& tol) const;
};

// The output of a workload, wherever it lives.
class OutputBuffer {
 public:
  virtual ~OutputBuffer() = default;
  virtual void poison() = 0;                               // every cell := the NaN poison pattern
  virtual void read(std::vector<std::uint16_t>& host) = 0; // [rows, cols] bf16 bits; waits for the device
  virtual void corrupt(FaultKind kind) = 0;                // fault injection: Wrong or Partial
  // Checks the output against `ref`: by default reads all of it to the host. An output elsewhere may
  // count unwritten cells where it lives and bring back only the sampled rows (same verdicts).
  virtual CheckResult check(const Reference& ref, const Tolerance& tol);
};

class Workload {
 public:
  virtual ~Workload() = default;
  virtual int sets() const = 0;  // input sets rotated through
  virtual OutputBuffer& output() = 0;
  // The bytes a launch on these inputs must move at least, where they differ from the key's (ProblemKey::min_bytes):
  // fused MoE reads the weights of the experts its routing reaches. 0: the key's.
  virtual double min_bytes() const { return 0; }
  Reference reference;
  // The input set the next timing starts on (measure()): the rotation goes on from one timing to the next on the
  // same inputs, so that a timing right after another (the interleaved rounds of tune's near ties and bench's
  // before/after) does not start on the sets the last one left in the L2 (docs/perf.md, 2026-12-02).
  int next_set = 0;
};

}  // namespace cktune
