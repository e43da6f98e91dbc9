// a8w8 and a8w8_bpreshuffle on the GPU: the shared FP8 GEMM unit (families/common/gpu.cpp) with per-token
// activation scales and per-channel weight scales, the weights row-major or in AITER's preshuffled layout.
#include "families/common/gpu_gemm.hpp"

namespace cktune {

const FamilyUnit& a8w8_gpu() {
  static const auto unit = make_gpu_gemm_unit(Family::A8W8);
  return *unit;
}

const FamilyUnit& a8w8_bpreshuffle_gpu() {
  static const auto unit = make_gpu_gemm_unit(Family::A8W8Bpreshuffle);
  return *unit;
}

}  // namespace cktune
