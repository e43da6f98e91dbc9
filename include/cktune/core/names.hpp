#pragma once
// One helper for every {value, "text"} table: an enum that appears on the command line, in a CSV cell
// or in JSON has exactly one table of names, read both ways by these two functions.
#include <cstddef>
#include <optional>
#include <string_view>

namespace cktune {

template <class E>
struct EnumName {
  E value;
  std::string_view text;
};

template <class E, std::size_t N>
constexpr std::string_view enum_text(const EnumName<E> (&table)[N], E value, std::string_view unknown = "?") {
  for (const auto& n : table)
    if (n.value == value) return n.text;
  return unknown;
}

template <class E, std::size_t N>
constexpr std::optional<E> enum_from_text(const EnumName<E> (&table)[N], std::string_view text) {
  for (const auto& n : table)
    if (n.text == text) return n.value;
  return std::nullopt;
}

}  // namespace cktune
