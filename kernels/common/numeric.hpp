#pragma once
// fp32 <-> bf16 and fp8 (e4m3fn) helpers usable on host and device, written with plain bit
// arithmetic so that the same code compiles under nvcc and hipcc without vendor type headers (the
// bf16 pair pack on NVIDIA devices excepted: one instruction from arch_sm90.hpp).
#include <cstdint>

#include "compat.hpp"
#if defined(__CUDACC__)
#include "arch_sm90.hpp"
#endif

#include "host_device.hpp"

namespace cktune::gpu {

// Round-to-nearest-even fp32 -> bf16 bits; NaN stays a quiet NaN (never rounds to Inf).
CKTUNE_HD uint16_t f32_to_bf16_bits(float f) {
  uint32_t u;
  __builtin_memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

CKTUNE_HD float bf16_bits_to_f32(uint16_t h) {
  uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  __builtin_memcpy(&f, &u, 4);
  return f;
}

// Two bf16 values packed little-endian into one 32-bit word (lo = first element in memory).
// NVIDIA devices (sm_80+) do it in one instruction, round-to-nearest-even like the bit arithmetic
// (a NaN comes out as the canonical 0x7fff instead of keeping its payload); the bit arithmetic cost
// about eight integer instructions a value, which in an epilogue of K = 256 (MoE stage 2) was a
// quarter of the kernel's instructions.
CKTUNE_HD uint32_t pack_bf16x2(float lo, float hi) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return sm90::cvt_bf16x2(lo, hi);
#else
  return static_cast<uint32_t>(f32_to_bf16_bits(lo)) |
         (static_cast<uint32_t>(f32_to_bf16_bits(hi)) << 16);
#endif
}

// OCP e4m3fn (NVIDIA, gfx950): bias 7, no infinities, 0x7f/0xff are NaN, max 448.
CKTUNE_HD float e4m3fn_to_f32(uint8_t v) {
  const uint32_t sign = (v & 0x80u) << 24;
  const uint32_t exp = (v >> 3) & 0xfu;
  const uint32_t man = v & 0x7u;
  uint32_t u;
  if ((v & 0x7fu) == 0x7fu) {
    u = sign | 0x7fc00000u;
  } else if (exp == 0) {
    // Subnormal: man * 2^-9.
    float f = static_cast<float>(man) * (1.0f / 512.0f);
    return sign ? -f : f;
  } else {
    u = sign | ((exp + 120u) << 23) | (man << 20);
  }
  float f;
  __builtin_memcpy(&f, &u, 4);
  return f;
}

}  // namespace cktune::gpu
