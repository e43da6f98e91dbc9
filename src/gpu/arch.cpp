// Pure string helpers behind device.hpp: compiled into every build (no runtime calls here).
#include <cctype>
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "cktune/gpu/device.hpp"

namespace cktune::gpu {

std::string normalize_arch(std::string_view runtime_arch) {
  // gcnArchName carries target features after ':' ("gfx942:sramecc+:xnack-"); AITER keys on the
  // processor alone.
  auto colon = runtime_arch.find(':');
  std::string_view base = runtime_arch.substr(0, colon);
  while (!base.empty() && std::isspace(static_cast<unsigned char>(base.back()))) base.remove_suffix(1);
  while (!base.empty() && std::isspace(static_cast<unsigned char>(base.front()))) base.remove_prefix(1);
  return std::string(base);
}

std::string sm_arch(int major, int minor) { return fmt::format("sm_{}{}", major, minor); }

std::string format_runtime_version(int encoded, bool hip) {
  if (encoded <= 0) return {};
  if (hip) {
    // HIP_VERSION = major * 10000000 + minor * 100000 + patch.
    return fmt::format("{}.{}.{}", encoded / 10000000, (encoded / 100000) % 100, encoded % 100000);
  }
  return fmt::format("{}.{}", encoded / 1000, (encoded % 1000) / 10);
}

std::string format_gpu_uuid(const unsigned char (&b)[16]) {
  bool any = false;
  for (unsigned char c : b) any = any || c != 0;
  if (!any) return {};
  return fmt::format("GPU-{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
                     b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

std::string normalize_pci_bus_id(std::string_view id) {
  // domain:bus:device.function, each hex; NVML pads the domain to 8 digits, CUDA to 4.
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  std::string text(id);
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%x:%x:%x.%x%n", &domain, &bus, &device, &function, &consumed) == 4 &&
      consumed == static_cast<int>(text.size())) {
    return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", domain, bus, device, function);
  }
  // Without a domain ("18:00.0"), as some tools print it.
  consumed = 0;
  if (std::sscanf(text.c_str(), "%x:%x.%x%n", &bus, &device, &function, &consumed) == 3 &&
      consumed == static_cast<int>(text.size())) {
    return fmt::format("0000:{:02x}:{:02x}.{:x}", bus, device, function);
  }
  return {};
}

}  // namespace cktune::gpu
