#pragma once
// Errors: a recoverable cktune::Error for bad input and user mistakes, GpuError for the runtime.
// Both are caught once, at the top of the binary, and turned into "cktune: error: ..." plus an exit code.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace cktune {

// Process exit codes, documented in docs/cli.md.
enum class ExitCode : int {
  Ok = 0,
  Error = 1,        // bad input, failed operation
  Usage = 2,        // command line could not be parsed
  CheckFailed = 3,  // a --check found problems (duplicates, invalid rows)
  GpuFailure = 4,   // GPU runtime error
  Internal = 70,    // bug: unexpected exception
};

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what, std::string hint = {})
      : std::runtime_error(what), hint_(std::move(hint)) {}
  const std::string& hint() const { return hint_; }

 private:
  std::string hint_;
};

// Bad input at a known place: "FILE:LINE:COL: MESSAGE". line/column are 1-based; 0 = unknown.
class InputError : public Error {
 public:
  InputError(std::string file, std::uint64_t line, std::uint64_t column, const std::string& message,
             std::string hint = {});
  const std::string& file() const { return file_; }
  std::uint64_t line() const { return line_; }
  std::uint64_t column() const { return column_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  std::uint64_t line_;
  std::uint64_t column_;
  std::string message_;
};

class GpuError : public Error {
 public:
  using Error::Error;
};

}  // namespace cktune
