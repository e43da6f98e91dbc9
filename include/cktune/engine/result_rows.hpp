#pragma once
// A candidate's outcome as a row of cktune's results format (bench's output and tune's profile file).
#include <cstdint>

#include "cktune/core/device.hpp"
#include "cktune/engine/job.hpp"
#include "cktune/results/results.hpp"

namespace cktune {

ResultRow result_row(const ProblemKey& key, const DeviceInfo& device, const CandidateResult& r, ResultRole role,
                     ResultSource source, const Protocol& protocol, std::uint64_t seed);

}  // namespace cktune
