// cuBLASLt block-scaled FP8 baseline, loaded with dlopen; only the header's types are used.
#include "blaslt.hpp"

#if defined(CKTUNE_CUDA)

#include <cublasLt.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace cktune::gpu::blaslt {
namespace {

// The subset of the cuBLASLt API we call, resolved from the loaded library.
struct Api {
  void* lib = nullptr;
  decltype(&cublasLtCreate) create = nullptr;
  decltype(&cublasLtGetVersion) get_version = nullptr;
  decltype(&cublasLtMatmulDescCreate) desc_create = nullptr;
  decltype(&cublasLtMatmulDescDestroy) desc_destroy = nullptr;
  decltype(&cublasLtMatmulDescSetAttribute) desc_set = nullptr;
  decltype(&cublasLtMatrixLayoutCreate) layout_create = nullptr;
  decltype(&cublasLtMatrixLayoutDestroy) layout_destroy = nullptr;
  decltype(&cublasLtMatmulPreferenceCreate) pref_create = nullptr;
  decltype(&cublasLtMatmulPreferenceDestroy) pref_destroy = nullptr;
  decltype(&cublasLtMatmulPreferenceSetAttribute) pref_set = nullptr;
  decltype(&cublasLtMatmulAlgoGetHeuristic) heuristic = nullptr;
  decltype(&cublasLtMatmulAlgoConfigGetAttribute) algo_get = nullptr;
  decltype(&cublasLtMatmul) matmul = nullptr;
  cublasLtHandle_t handle = nullptr;
};

Api g_api;
Availability g_avail;
std::once_flag g_once;

constexpr size_t kMaxWorkspace = 32u << 20;

template <class F>
bool sym(void* lib, const char* name, F& out) {
  out = reinterpret_cast<F>(dlsym(lib, name));
  return out != nullptr;
}

void load() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("CKTUNE_CUBLASLT"); env != nullptr && *env != '\0') candidates.emplace_back(env);
  candidates.emplace_back("libcublasLt.so.13");
  candidates.emplace_back("libcublasLt.so");
  candidates.emplace_back("/usr/local/cuda/lib64/libcublasLt.so.13");
  std::string tried;
  for (const auto& c : candidates) {
    void* lib = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      const char* e = dlerror();
      tried += "\n  " + c + ": " + (e ? e : "not found");
      continue;
    }
    Api a;
    a.lib = lib;
    const bool ok = sym(lib, "cublasLtCreate", a.create) && sym(lib, "cublasLtGetVersion", a.get_version) &&
                    sym(lib, "cublasLtMatmulDescCreate", a.desc_create) &&
                    sym(lib, "cublasLtMatmulDescDestroy", a.desc_destroy) &&
                    sym(lib, "cublasLtMatmulDescSetAttribute", a.desc_set) &&
                    sym(lib, "cublasLtMatrixLayoutCreate", a.layout_create) &&
                    sym(lib, "cublasLtMatrixLayoutDestroy", a.layout_destroy) &&
                    sym(lib, "cublasLtMatmulPreferenceCreate", a.pref_create) &&
                    sym(lib, "cublasLtMatmulPreferenceDestroy", a.pref_destroy) &&
                    sym(lib, "cublasLtMatmulPreferenceSetAttribute", a.pref_set) &&
                    sym(lib, "cublasLtMatmulAlgoGetHeuristic", a.heuristic) &&
                    sym(lib, "cublasLtMatmulAlgoConfigGetAttribute", a.algo_get) &&
                    sym(lib, "cublasLtMatmul", a.matmul);
    if (!ok) {
      tried += "\n  " + c + ": missing cublasLt symbols (too old?)";
      dlclose(lib);
      continue;
    }
    const size_t version = a.get_version();
    if (version < 120900) {
      tried += "\n  " + c + ": version " + std::to_string(version) + " lacks 128-block FP8 scaling (needs 12.9+)";
      dlclose(lib);
      continue;
    }
    if (a.create(&a.handle) != CUBLAS_STATUS_SUCCESS) {
      tried += "\n  " + c + ": cublasLtCreate failed (no usable GPU?)";
      dlclose(lib);
      continue;
    }
    g_api = a;
    g_avail.ok = true;
    g_avail.library = c;
    g_avail.version = version;
    return;
  }
  g_avail.ok = false;
  g_avail.reason = "cuBLASLt unavailable; tried:" + tried + "\n  (set CKTUNE_CUBLASLT to the library's path)";
}

int round_up(int v, int m) { return (v + m - 1) / m * m; }

}  // namespace

const Availability& available() {
  std::call_once(g_once, load);
  return g_avail;
}

struct Plan::Impl {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  ~Impl() {
    if (la) g_api.layout_destroy(la);
    if (lb) g_api.layout_destroy(lb);
    if (lc) g_api.layout_destroy(lc);
    if (desc) g_api.desc_destroy(desc);
  }
};

Plan::Plan(Plan&&) noexcept = default;
Plan& Plan::operator=(Plan&&) noexcept = default;
Plan::~Plan() = default;

Plan Plan::create(int M, int N, int K, int max_algos, Scaling scaling) {
  Plan p;
  p.M_ = M;
  p.scaling_ = scaling;
  const int Mp = (M + 3) / 4 * 4;
  p.N_ = N;
  p.K_ = K;
  const auto& av = available();
  if (!av.ok) {
    p.why_not_ = av.reason;
    return p;
  }
  if (scaling == Scaling::Block128 && K % 128 != 0) {
    p.why_not_ = "K is not a multiple of 128";
    return p;
  }
  if (K % 16 != 0) {
    p.why_not_ = "K is not a multiple of 16 (cuBLASLt's FP8 operands need 16-byte rows)";
    return p;
  }
  auto impl = std::make_unique<Impl>();
  auto fail = [&](const char* what, cublasStatus_t st) {
    p.why_not_ = std::string(what) + " failed: " + status_string(st);
    return std::move(p);
  };
  cublasStatus_t st = g_api.desc_create(&impl->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  if (st != CUBLAS_STATUS_SUCCESS) return fail("cublasLtMatmulDescCreate", st);
  const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  g_api.desc_set(impl->desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
  g_api.desc_set(impl->desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
  const bool outer = scaling == Scaling::OuterVector;
  const cublasLtMatmulMatrixScale_t sa =
      outer ? CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F : CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
  const cublasLtMatmulMatrixScale_t sb =
      outer ? CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F : CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
  st = g_api.desc_set(impl->desc, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &sa, sizeof sa);
  if (st != CUBLAS_STATUS_SUCCESS) return fail("A_SCALE_MODE", st);
  st = g_api.desc_set(impl->desc, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &sb, sizeof sb);
  if (st != CUBLAS_STATUS_SUCCESS) return fail("B_SCALE_MODE", st);
  // CKTUNE_BLASLT_FAST_ACCUM=1 (a measurement switch, docs/cli.md): the library's fp8 fast accumulation, the
  // mode our fast-accumulation kernels (wgmmaf, wgmmapf) run in, so that they can be set against it as well.
  if (const char* fa = std::getenv("CKTUNE_BLASLT_FAST_ACCUM"); fa != nullptr && std::string(fa) == "1") {
    const int8_t on = 1;
    st = g_api.desc_set(impl->desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &on, sizeof on);
    if (st != CUBLAS_STATUS_SUCCESS) return fail("FAST_ACCUM", st);
  }
  // Scale pointers must be set before the heuristic query; real ones are set per launch.
  const void* dummy = reinterpret_cast<const void*>(uintptr_t{256});
  g_api.desc_set(impl->desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &dummy, sizeof dummy);
  g_api.desc_set(impl->desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &dummy, sizeof dummy);

  st = g_api.layout_create(&impl->la, CUDA_R_8F_E4M3, K, N, K);
  if (st != CUBLAS_STATUS_SUCCESS) return fail("layout A", st);
  st = g_api.layout_create(&impl->lb, CUDA_R_8F_E4M3, K, Mp, K);
  if (st != CUBLAS_STATUS_SUCCESS) return fail("layout B", st);
  st = g_api.layout_create(&impl->lc, CUDA_R_16BF, N, Mp, N);
  if (st != CUBLAS_STATUS_SUCCESS) return fail("layout C", st);

  cublasLtMatmulPreference_t pref = nullptr;
  g_api.pref_create(&pref);
  const size_t ws = kMaxWorkspace;
  g_api.pref_set(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
  std::vector<cublasLtMatmulHeuristicResult_t> res(static_cast<size_t>(max_algos));
  int found = 0;
  st = g_api.heuristic(g_api.handle, impl->desc, impl->la, impl->lb, impl->lc, impl->lc, pref, max_algos,
                       res.data(), &found);
  g_api.pref_destroy(pref);
  if (st != CUBLAS_STATUS_SUCCESS || found == 0) {
    p.why_not_ = std::string("cuBLASLt has no algorithm for this shape (") + status_string(st) + ")";
    return p;
  }
  for (int i = 0; i < found; ++i) {
    if (res[i].state != CUBLAS_STATUS_SUCCESS) continue;
    Algo a{};
    static_assert(sizeof(a.data) == sizeof(res[i].algo.data));
    std::memcpy(a.data, res[i].algo.data, sizeof a.data);
    a.workspace_bytes = res[i].workspaceSize;
    a.waves = res[i].wavesCount;
    auto get = [&](cublasLtMatmulAlgoConfigAttributes_t attr) {
      uint32_t v = 0;
      size_t written = 0;
      g_api.algo_get(&res[i].algo, attr, &v, sizeof v, &written);
      return v;
    };
    char name[128];
    std::snprintf(name, sizeof name, "blaslt_a%u_t%u_st%u_sk%u_r%u_sw%u_c%u", get(CUBLASLT_ALGO_CONFIG_ID),
                  get(CUBLASLT_ALGO_CONFIG_TILE_ID), get(CUBLASLT_ALGO_CONFIG_STAGES_ID),
                  get(CUBLASLT_ALGO_CONFIG_SPLITK_NUM), get(CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME),
                  get(CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING), get(CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID));
    a.name = name;
    p.algos_.push_back(std::move(a));
  }
  p.impl_ = std::move(impl);
  return p;
}

size_t Plan::max_workspace_bytes() const {
  size_t m = 0;
  for (const auto& a : algos_) m = a.workspace_bytes > m ? a.workspace_bytes : m;
  return m;
}

size_t Plan::scale_bytes() const {
  if (scaling_ == Scaling::OuterVector) return 0;
  const int kb = K_ / 128, nb = (N_ + 127) / 128;
  size_t b = static_cast<size_t>(kb) * round_up(M_, 4) * sizeof(float);
  if (kb % 4 != 0) b += static_cast<size_t>(nb) * round_up(kb, 4) * sizeof(float);
  return (b + 255) / 256 * 256;
}

ErrorCode Plan::convert_scales(const float* x_scale, const float* w_scale, void* dst, Stream s,
                               const float** x_scale_t, const float** w_scale_out) const {
  // Strided copies on the copy engine (no kernel): column kb of [M][KB] -> row kb of [KB][m_pad].
  if (scaling_ == Scaling::OuterVector) {  // used as given
    *x_scale_t = x_scale;
    *w_scale_out = w_scale;
    return kSuccess;
  }
  const int kb = K_ / 128, nb = (N_ + 127) / 128, mp = round_up(M_, 4);
  auto* xt = static_cast<float*>(dst);
  ErrorCode e = rt::memset_async(dst, 0, scale_bytes(), s);
  if (e != kSuccess) return e;
  // Development switch to test the other reading of the documentation (scales K-major as given).
  if (const char* v = std::getenv("CKTUNE_BLASLT_XSCALE_KMAJOR"); v != nullptr && *v == '1') {
    e = rt::memcpy_d2d_async(xt, x_scale, static_cast<size_t>(M_) * kb * sizeof(float), s);
    *x_scale_t = xt;
    *w_scale_out = w_scale;
    return e;
  }
  for (int k = 0; k < kb && e == kSuccess; ++k)
    e = rt::memcpy2d_d2d_async(xt + static_cast<size_t>(k) * mp, sizeof(float), x_scale + k,
                               static_cast<size_t>(kb) * sizeof(float), sizeof(float), static_cast<size_t>(M_), s);
  if (e != kSuccess) return e;
  *x_scale_t = xt;
  *w_scale_out = w_scale;
  if (kb % 4 != 0) {
    float* wp = xt + static_cast<size_t>(kb) * mp;
    e = rt::memcpy2d_d2d_async(wp, static_cast<size_t>(round_up(kb, 4)) * sizeof(float), w_scale,
                               static_cast<size_t>(kb) * sizeof(float), static_cast<size_t>(kb) * sizeof(float),
                               static_cast<size_t>(nb), s);
    *w_scale_out = wp;
  }
  return e;
}

int Plan::launch(int algo, const Args& a, Stream s) const {
  if (!impl_ || algo < 0 || static_cast<size_t>(algo) >= algos_.size()) return CUBLAS_STATUS_INVALID_VALUE;
  const Algo& al = algos_[static_cast<size_t>(algo)];
  if (a.workspace_bytes < al.workspace_bytes) return CUBLAS_STATUS_INVALID_VALUE;
  g_api.desc_set(impl_->desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &a.w_scale, sizeof a.w_scale);
  g_api.desc_set(impl_->desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &a.x_scale_t, sizeof a.x_scale_t);
  const float alpha = 1.f, beta = 0.f;
  cublasLtMatmulAlgo_t alg;
  std::memcpy(alg.data, al.data, sizeof alg.data);
  return g_api.matmul(g_api.handle, impl_->desc, &alpha, a.wq, impl_->la, a.xq, impl_->lb, &beta, a.y, impl_->lc,
                      a.y, impl_->lc, &alg, a.workspace, a.workspace_bytes, s);
}

const char* Plan::status_string(int status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED: return "alloc failed";
    case CUBLAS_STATUS_INVALID_VALUE: return "invalid value";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "arch mismatch";
    case CUBLAS_STATUS_MAPPING_ERROR: return "mapping error";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "execution failed";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "internal error";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "not supported";
    default: return "unknown status";
  }
}

}  // namespace cktune::gpu::blaslt

#else  // HIP build: cuBLASLt does not exist there (a hipBLASLt baseline is future work).

namespace cktune::gpu::blaslt {

const Availability& available() {
  static const Availability a{false, "cuBLASLt is NVIDIA-only; this is a HIP build (hipBLASLt baseline not implemented)", "", 0};
  return a;
}
struct Plan::Impl {};
Plan::Plan(Plan&&) noexcept = default;
Plan& Plan::operator=(Plan&&) noexcept = default;
Plan::~Plan() = default;
Plan Plan::create(int M, int N, int K, int, Scaling) {
  Plan p;
  p.M_ = M, p.N_ = N, p.K_ = K;
  p.why_not_ = available().reason;
  return p;
}
size_t Plan::max_workspace_bytes() const { return 0; }
size_t Plan::scale_bytes() const { return 0; }
ErrorCode Plan::convert_scales(const float*, const float*, void*, Stream, const float**, const float**) const {
  return kErrorNotSupported;
}
int Plan::launch(int, const Args&, Stream) const { return -1; }
const char* Plan::status_string(int) { return "unavailable"; }

}  // namespace cktune::gpu::blaslt

#endif
