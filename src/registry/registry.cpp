// The registries: which backends this build has, and the (family, backend) units of families.def.
// This is the only file that names every backend and every family unit.
#include <fmt/format.h>

#include "backends/cpu_backend.hpp"
#include "cktune/core/error.hpp"
#include "cktune/engine/family_unit.hpp"
#if defined(CKTUNE_WITH_GPU)
#include "backends/gpu_backend.hpp"
#endif

namespace cktune {

#define CKTUNE_FAMILY(family, backend, accessor) const FamilyUnit& accessor();
#include "registry/families.def"
#undef CKTUNE_FAMILY

namespace {
#define CKTUNE_FAMILY(family, backend, accessor) FamilyEntry{Family::family, BackendKind::backend, &accessor},
constexpr FamilyEntry kFamilies[] = {
#include "registry/families.def"
};
#undef CKTUNE_FAMILY
}  // namespace

std::span<const FamilyEntry> family_registry() { return kFamilies; }

std::vector<BackendKind> compiled_backends() {
#if defined(CKTUNE_WITH_GPU)
  return {BackendKind::Cpu, BackendKind::Gpu};
#else
  return {BackendKind::Cpu};
#endif
}

std::unique_ptr<Backend> make_backend(BackendKind kind, int device_index) {
  switch (kind) {
    case BackendKind::Cpu:
      return make_cpu_backend();
    case BackendKind::Gpu:
#if defined(CKTUNE_WITH_GPU)
      return make_gpu_backend(device_index);
#else
      (void)device_index;
      throw Error("this cktune was built without a GPU backend",
                  "rebuild with -DCKTUNE_GPU=cuda (or hip), or use --device cpu");
#endif
  }
  throw Error(fmt::format("unknown backend {}", static_cast<int>(kind)));
}

}  // namespace cktune
