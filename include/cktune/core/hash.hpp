#pragma once
// A hash whose value is the same on every build, compiler and platform (std::hash is not): for
// identities that are written to disk and compared by a later run, such as tune's resume identity.
#include <cstdint>
#include <string_view>

namespace cktune {

// 64-bit FNV-1a.
constexpr std::uint64_t stable_hash64(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace cktune
