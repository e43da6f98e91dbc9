#pragma once
// The two tuned-row writers family units choose from: AITER's GEMM schema (kernelId, splitK, us,
// kernelName, tflops, bw, errRatio, with libtype where the family has one) and its fused-MoE schema.
#include <string>
#include <vector>

#include "cktune/core/device.hpp"
#include "cktune/engine/instance.hpp"
#include "cktune/engine/job.hpp"

namespace cktune {

// One GEMM tuned row in the family's tuned header order.
std::vector<std::string> gemm_tuned_row(const ProblemKey& key, const DeviceInfo& device, const CandidateResult& winner);

// The result cells of one tuned_fmoe row.
struct MoeRowParts {
  int block_m = 0;
  int ksplit = 0;  // split count of stage 1 (0 = not split)
  double us1 = 0, us2 = 0;
  std::string kernel1, kernel2;
  double err1 = 0, err2 = 0;
  bool run_1stage = false;
  double min_bytes = 0;  // the bytes behind bw (the winner's CandidateResult::min_bytes); 0: the key's
};
// One tuned_fmoe row: us = us1 + us2 (AITER's rule), tflops and bw from that sum.
std::vector<std::string> moe_tuned_row(const ProblemKey& key, const DeviceInfo& device, const MoeRowParts& parts);

// One tuned_fmoe row for a candidate that runs both stages as one timed unit: us1 holds that time and
// kernelName1 the instance; the stage-2 cells are zeros with an empty kernel name (docs/formats.md).
// block_m comes from the instance's "block_m" parameter (0 when it has none).
std::vector<std::string> moe_single_unit_tuned_row(const ProblemKey& key, const DeviceInfo& device,
                                                   const CandidateResult& winner, const InstanceDesc& desc);

}  // namespace cktune
