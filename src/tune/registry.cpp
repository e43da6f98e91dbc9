#include "cktune/tune/registry.hpp"

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/tune/backend.hpp"
#include "backends/cpu_backend.hpp"
#if defined(CKTUNE_WITH_GPU)
#include "gpu/gpu_backend.hpp"
#endif

namespace cktune {

std::vector<std::string> compiled_backends() {
#if defined(CKTUNE_WITH_GPU)
  return {"cpu", "gpu"};
#else
  return {"cpu"};
#endif
}

std::vector<InstanceDesc> list_instances(const std::string& backend, Family family, bool include_test_only) {
  std::vector<InstanceDesc> all;
  if (backend == "cpu") all = cpu_instance_descs(family);
#if defined(CKTUNE_WITH_GPU)
  else if (backend == "gpu") all = gpu_instance_descs(family);
#endif
  else if (backend != "gpu")
    throw Error(fmt::format("unknown backend '{}'", backend), "use --device cpu or --device gpu");
  if (include_test_only) return all;
  std::vector<InstanceDesc> out;
  for (auto& d : all)
    if (!d.test_only) out.push_back(std::move(d));
  return out;
}

std::vector<RegistryEntry> build_contents() {
  std::vector<RegistryEntry> out;
  for (const auto& b : compiled_backends()) {
    for (Family f : kAllFamilies) {
      auto all = list_instances(b, f, true);
      if (all.empty()) continue;
      RegistryEntry e;
      e.backend = b;
      e.family = f;
      for (const auto& d : all) (d.test_only ? e.test_only : e.instances)++;
      out.push_back(e);
    }
  }
  return out;
}

std::unique_ptr<Backend> make_backend(const std::string& name, int device_index) {
  if (name == "cpu") return make_cpu_backend();
  if (name == "gpu") {
#if defined(CKTUNE_WITH_GPU)
    return make_gpu_backend(device_index);
#else
    (void)device_index;
    throw Error("this cktune was built without a GPU backend",
                "rebuild with -DCKTUNE_GPU=cuda (or hip), or use --device cpu");
#endif
  }
  throw Error(fmt::format("unknown backend '{}'", name), "use --device cpu or --device gpu");
}

}  // namespace cktune
