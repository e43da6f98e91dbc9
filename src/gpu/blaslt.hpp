#pragma once
// Vendor baseline for the FP8 GEMM families on NVIDIA: cuBLASLt's scaled FP8 GEMM, block-scaled for
// a8w8_blockscale (weights with one fp32 scale per 128x128 block, activations with one per 1x128
// block) or with outer-vector scales for a8w8 / a8w8_bpreshuffle (one fp32 scale per weight row and
// one per activation row).
// libcublasLt is loaded at run time (dlopen), so cktune runs where it is absent; then available()
// says why. The heuristic's algorithms for a shape are this family's instances.
//
// Layout: Y[M,N] row-major is computed as the column-major product D[N,M] = W^T(op T) * X, i.e.
// cuBLASLt A = WQ (K x N column-major, transposed), B = XQ (K x M column-major), "TN".
// cuBLASLt wants the activation scales M-major ([K/128][M rounded up to 4]), not AITER's
// [M][K/128]; Plan::convert_scales() rewrites them once per input set, outside any timed region.
// Outer-vector scales are used as given: w_scale [N], x_scale [padded_m()].
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../../kernels/common/compat.hpp"

namespace cktune::gpu::blaslt {

struct Availability {
  bool ok = false;
  std::string reason;   // why not, when !ok
  std::string library;  // the file that was loaded
  size_t version = 0;   // cublasLtGetVersion()
};
// Loads the library once (CKTUNE_CUBLASLT, libcublasLt.so.13, libcublasLt.so,
// /usr/local/cuda/lib64/libcublasLt.so.13) and creates a handle.
const Availability& available();

struct Algo {
  std::string name;        // "blaslt_a<algo>_t<tile>_st<stages>_sk<splitk>_r<red>_sw<swz>_c<cluster>"
  size_t workspace_bytes;  // what this algorithm asks for
  float waves;             // heuristic's utilisation estimate
  uint64_t data[8];        // cublasLtMatmulAlgo_t, opaque
};

enum class Scaling {
  Block128,     // CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F (W) and VEC128_32F (X)
  OuterVector,  // CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F for both
};

struct Args {
  const uint8_t* xq;       // [M,K]
  const float* x_scale_t;  // Block128: converted [K/128][m_pad] (see convert_scales); OuterVector: [m_pad]
  const uint8_t* wq;       // [N,K] row-major
  const float* w_scale;    // Block128: [ceil(N/128)][kb_pad], AITER's layout when K/128 % 4 == 0, else
                           // converted; OuterVector: [N]
  uint16_t* y;             // [M,N] bf16
  void* workspace;
  size_t workspace_bytes;
};

// Descriptors and heuristic results for one (M,N,K). Move-only.
class Plan {
 public:
  // Empty plan with a reason when the library is unavailable or the shape unsupported.
  static Plan create(int M, int N, int K, int max_algos = 8, Scaling scaling = Scaling::Block128);
  Plan(Plan&&) noexcept;
  Plan& operator=(Plan&&) noexcept;
  ~Plan();

  const std::vector<Algo>& algos() const { return algos_; }
  // cuBLASLt rejects this problem unless M is a multiple of 4: the plan runs M rounded up, so the
  // caller's X must have padded_m() readable rows and Y padded_m() writable rows (extra rows of Y
  // are scratch). bench allocates both that way; the extra rows are part of what cuBLASLt does.
  int padded_m() const { return (M_ + 3) / 4 * 4; }
  const std::string& why_not() const { return why_not_; }  // empty when algos() is not empty
  size_t max_workspace_bytes() const;

  // Bytes of device scratch for converted scales, and the conversion itself (enqueued, no sync).
  // x_scale_t = dst, w_scale = w_scale unless K/128 is not a multiple of 4 (then dst + offset).
  size_t scale_bytes() const;
  ErrorCode convert_scales(const float* x_scale, const float* w_scale, void* dst, Stream s,
                           const float** x_scale_t, const float** w_scale_out) const;

  // Enqueue one algorithm. Returns 0 on success, else the cublasStatus_t value.
  int launch(int algo, const Args& a, Stream s) const;
  static const char* status_string(int status);

 private:
  Plan() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<Algo> algos_;
  std::string why_not_;
  int M_ = 0, N_ = 0, K_ = 0;
  Scaling scaling_ = Scaling::Block128;
};

}  // namespace cktune::gpu::blaslt
