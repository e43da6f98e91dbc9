#pragma once
// Run a helper program (python3, git, rocm-smi) with a deadline and capture its output. discover must
// never hang on a broken Python or a slow network file system, so every child gets a timeout and is
// killed (with its process group) when it runs past it.
#include <string>
#include <vector>

namespace cktune::discover {

struct ProcessResult {
  bool started = false;     // false: the program could not be run (not found, fork failed); see error
  bool timed_out = false;   // killed after the timeout
  int exit_code = -1;       // exit status when it exited normally; -1 otherwise (signal, not started)
  std::string out;          // standard output (capped at max_output bytes)
  std::string err;          // standard error (capped likewise)
  std::string error;        // why it did not start or did not finish, in words

  bool ok() const { return started && !timed_out && exit_code == 0; }
};

// Run argv[0] (looked up in PATH) with the arguments argv[1..]; no shell is involved.
ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s, size_t max_output = 1 << 20);

// Full path of `program` found in PATH (or `program` itself when it contains a '/' and is executable);
// "" when not found.
std::string find_in_path(const std::string& program);

}  // namespace cktune::discover
