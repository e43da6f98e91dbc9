// a8w8_blockscale on the GPU: the shared FP8 GEMM unit with block scales (families/common/gpu.cpp).
#include "families/common/gpu_gemm.hpp"

namespace cktune {

const FamilyUnit& a8w8_blockscale_gpu() {
  static const auto unit = make_gpu_gemm_unit(Family::A8W8Blockscale);
  return *unit;
}

}  // namespace cktune
