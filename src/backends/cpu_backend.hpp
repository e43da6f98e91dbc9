#pragma once
// The CPU backend: cktune's CPU implementations as candidates, timed with the host clock and checked
// against the CPU references. It lets the whole workflow run (and be tested) on a machine with no GPU.
#include <memory>
#include <vector>

#include "cktune/tune/backend.hpp"

namespace cktune {

std::vector<InstanceDesc> cpu_instance_descs(Family family);
std::unique_ptr<Backend> make_cpu_backend();

}  // namespace cktune
