#pragma once
// A kernel family's instance table: plain rows, each a parameter set (a struct with `int id` and
// `const char* name`) and the function that launches it. The table numbers the rows in order and names
// each from its parameters; it owns the names, so a table lives as long as the program (a static).
#include <array>
#include <cstddef>
#include <span>
#include <string>

namespace cktune::kernels {

template <class P, class Fn>
struct TableEntry {
  P params;
  Fn launch;
};

template <class P, class Fn, size_t N>
struct InstanceTable {
  std::array<P, N> params{};
  std::array<std::string, N> names;
  std::array<Fn, N> launch{};

  template <class NameOf>
  InstanceTable(const std::array<TableEntry<P, Fn>, N>& entries, NameOf name_of) {
    for (size_t i = 0; i < N; ++i) {
      params[i] = entries[i].params;
      params[i].id = static_cast<int>(i);
      names[i] = name_of(params[i]);
      params[i].name = names[i].c_str();
      launch[i] = entries[i].launch;
    }
  }
  InstanceTable(const InstanceTable&) = delete;  // the rows point into `names`
  InstanceTable& operator=(const InstanceTable&) = delete;

  std::span<const P> rows() const { return {params.data(), N}; }
};

}  // namespace cktune::kernels
