#pragma once
// What the CPU GEMM family units share: one instance list (cktune's CPU GEMM algorithms and blockings,
// plus the planted wrong kernels used by tests), the untuned default, and the shape guard. The
// blockscale and per-token units differ only in their inputs, names and kernel entry points.
#include <string>
#include <vector>

#include "cktune/cpu/gemm_kernels.hpp"
#include "cktune/engine/instance.hpp"

namespace cktune::families {

struct CpuGemmCandidate {
  CpuBlockscaleParams params;
  InstanceDesc desc;
};

// Every CPU GEMM instance for `family`, named by `name` (kernel_name or ptpc_kernel_name).
std::vector<CpuGemmCandidate> cpu_gemm_candidates(Family family, std::string (*name)(const CpuBlockscaleParams&));

// The untuned default: one blocking for every shape, all threads (what a runtime without a table runs).
CpuBlockscaleParams cpu_gemm_default();

// Throws Error when the shape is beyond what the CPU backend prepares (host memory).
void check_cpu_gemm_size(const GemmDims& g);

}  // namespace cktune::families
