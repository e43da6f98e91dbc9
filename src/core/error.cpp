#include "cktune/core/error.hpp"

#include <fmt/format.h>

namespace cktune {

namespace {
std::string place(const std::string& file, std::uint64_t line, std::uint64_t column) {
  if (line == 0) return file;
  if (column == 0) return fmt::format("{}:{}", file, line);
  return fmt::format("{}:{}:{}", file, line, column);
}
}  // namespace

InputError::InputError(std::string file, std::uint64_t line, std::uint64_t column, const std::string& message,
                       std::string hint)
    : Error(fmt::format("{}: {}", place(file, line, column), message), std::move(hint)),
      file_(std::move(file)),
      line_(line),
      column_(column),
      message_(message) {}

}  // namespace cktune
