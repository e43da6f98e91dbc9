#pragma once
// The peak rates of the accelerators cktune's users tune on, from the vendors' datasheets: what a shape's
// hardware floor (report, "Against the hardware floors") is counted from. Dense tensor rates (no structured
// sparsity) and HBM bandwidth. They are leads, not measurements: a chip sustains less (H200, 2026-11: a
// streaming read of the weights at ~3.9 of the 4.8 TB/s, docs/perf.md), so whoever shows a floor says which
// peaks it used, and measured ceilings can replace them.
#include <optional>
#include <string>
#include <string_view>

namespace cktune {

// The operand type the tensor cores multiply in: what sets a GEMM's compute rate.
enum class MathType { Fp8, Int8, Bf16, Fp4 };
std::string_view to_string(MathType t);

struct DevicePeaks {
  std::string model;          // "H200 SXM", "MI300X"; "given" for peaks from the command line
  double fp8_tflops = 0;      // dense; 0 = the chip has no such tensor rate (fp4 before MI355X / Blackwell)
  double int8_tops = 0;
  double bf16_tflops = 0;
  double fp4_tflops = 0;
  double memory_tbps = 0;     // HBM, TB/s (1e12 bytes a second)
  std::string source;         // "datasheet" or "command line"

  double tensor_tflops(MathType t) const;  // 0 when unknown
};

// The datasheet peaks of the device a results row names ("NVIDIA H200", "NVIDIA H100 80GB HBM3",
// "AMD Instinct MI300X"); nullopt for a device not in the table (the CPU, an unlisted GPU).
std::optional<DevicePeaks> datasheet_peaks(std::string_view device_name);
// The models the table knows, for messages: "H200 NVL, H200 SXM, ..., MI300X".
std::string datasheet_models();

// One shape's floor on one device: no kernel runs faster than the larger of its arithmetic at the tensor
// peak and its fewest bytes at the memory bandwidth.
struct HardwareFloor {
  double compute_us = 0;      // 0 when the device has no rate for the math type (then the floor is the bytes')
  double memory_us = 0;
  double us() const { return compute_us > memory_us ? compute_us : memory_us; }
  bool memory_bound() const { return memory_us >= compute_us; }
};
HardwareFloor hardware_floor(double flops, double bytes, MathType type, const DevicePeaks& peaks);

}  // namespace cktune
