#pragma once
// The CPU backend: the host as a device (its description, the host clock as timer, the policy numbers
// for CPU runs) and the host-memory output that CPU family units use. It lets the whole workflow run
// (and be tested) on a machine with no GPU.
#include <cstdint>
#include <memory>
#include <vector>

#include "cktune/engine/backend.hpp"
#include "cktune/engine/workload.hpp"

namespace cktune {

// A bf16 [rows, cols] output in host memory.
class HostOutput final : public OutputBuffer {
 public:
  explicit HostOutput(std::size_t elements) : cells(elements, 0) {}
  void poison() override;
  void read(std::vector<std::uint16_t>& host) override { host = cells; }
  void corrupt(FaultKind kind) override;
  std::uint16_t* data() { return cells.data(); }
  std::vector<std::uint16_t> cells;
};

std::unique_ptr<Backend> make_cpu_backend();

}  // namespace cktune
