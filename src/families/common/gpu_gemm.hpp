#pragma once
// The GPU unit of the FP8 GEMM families (src/families/common/gpu.cpp): a8w8_blockscale, a8w8 and
// a8w8_bpreshuffle share the kernel tables of kernels/a8w8_blockscale and the cuBLASLt candidates; each
// family's gpu.cpp holds only its accessor.
#include <memory>

#include "cktune/engine/family_unit.hpp"

namespace cktune {

// Throws std::logic_error for a family that is not one of the three.
std::unique_ptr<FamilyUnit> make_gpu_gemm_unit(Family family);

}  // namespace cktune
