#pragma once
// The GPU backend: cktune's hand-written kernel instances and the vendor library (cuBLASLt) as
// candidates, timed with GPU events and checked against the CPU references.
#include <memory>
#include <vector>

#include "cktune/tune/backend.hpp"

namespace cktune {

std::vector<InstanceDesc> gpu_instance_descs(Family family);
std::unique_ptr<Backend> make_gpu_backend(int device_index);

}  // namespace cktune
