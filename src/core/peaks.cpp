#include "cktune/core/peaks.hpp"

#include <array>

namespace cktune {

namespace {

struct Entry {
  std::string_view token;  // found in the device name the runtime reports
  std::string_view model;
  double fp8, int8, bf16, fp4, tbps;
};

// Dense rates in TFLOP/s (TOP/s for int8), bandwidth in TB/s, as the vendors' datasheets give them (the
// sparse figures halved where a datasheet leads with those). More specific tokens first: "H200 NVL" before
// "H200", "H100 PCIe" before "H100".
constexpr std::array kTable = {
    Entry{"H200 NVL", "H200 NVL", 1671, 1671, 835, 0, 4.8},
    Entry{"H200", "H200 SXM", 1979, 1979, 989, 0, 4.8},
    Entry{"H100 NVL", "H100 NVL", 1671, 1671, 835, 0, 3.9},
    Entry{"H100 PCIe", "H100 PCIe", 1513, 1513, 756, 0, 2.0},
    Entry{"H100", "H100 SXM", 1979, 1979, 989, 0, 3.35},
    Entry{"B200", "B200", 4500, 4500, 2250, 9000, 8.0},
    Entry{"MI355X", "MI355X", 5033, 5033, 2517, 10066, 8.0},
    Entry{"MI350X", "MI350X", 4614, 4614, 2307, 9229, 8.0},
    Entry{"MI325X", "MI325X", 2615, 2615, 1307, 0, 6.0},
    Entry{"MI300X", "MI300X", 2615, 2615, 1307, 0, 5.3},
};

}  // namespace

std::string_view to_string(MathType t) {
  switch (t) {
    case MathType::Fp8: return "fp8";
    case MathType::Int8: return "int8";
    case MathType::Bf16: return "bf16";
    case MathType::Fp4: return "fp4";
  }
  return "?";
}

double DevicePeaks::tensor_tflops(MathType t) const {
  switch (t) {
    case MathType::Fp8: return fp8_tflops;
    case MathType::Int8: return int8_tops;
    case MathType::Bf16: return bf16_tflops;
    case MathType::Fp4: return fp4_tflops;
  }
  return 0;
}

std::optional<DevicePeaks> datasheet_peaks(std::string_view name) {
  // Grace Hopper's GPU comes with two memories (HBM3 at 4.0, HBM3e at 4.9 TB/s) under one name: not guessed.
  if (name.find("GH200") != std::string_view::npos) return std::nullopt;
  for (const Entry& e : kTable) {
    if (name.find(e.token) == std::string_view::npos) continue;
    DevicePeaks p;
    p.model = std::string(e.model);
    p.fp8_tflops = e.fp8;
    p.int8_tops = e.int8;
    p.bf16_tflops = e.bf16;
    p.fp4_tflops = e.fp4;
    p.memory_tbps = e.tbps;
    p.source = "datasheet";
    return p;
  }
  return std::nullopt;
}

std::string datasheet_models() {
  std::string out;
  for (const Entry& e : kTable) {
    if (!out.empty()) out += ", ";
    out += e.model;
  }
  return out;
}

HardwareFloor hardware_floor(double flops, double bytes, MathType type, const DevicePeaks& peaks) {
  HardwareFloor f;
  const double rate = peaks.tensor_tflops(type);
  if (rate > 0) f.compute_us = flops / (rate * 1e6);                        // FLOP / (TFLOP/s) = 1e-12 s
  if (peaks.memory_tbps > 0) f.memory_us = bytes / (peaks.memory_tbps * 1e6);  // B / (TB/s) = 1e-12 s
  return f;
}

}  // namespace cktune
