#pragma once
// The outcome of running one candidate on one shape. One table gives every verdict its text, so the
// CLI, CSV files and JSON agree.
#include "cktune/core/names.hpp"
#include <optional>
#include <string_view>

namespace cktune {

enum class Verdict {
  Passed,        // ran, and the output matched the reference within tolerance
  Incorrect,     // ran, but the output is wrong (error ratio, a wrecked row, unwritten cells)
  NotSupported,  // can_run said no for this shape: a result, not an error
  Failed,        // launch or runtime error
  TimedOut,      // the watchdog stopped it
  Faulted,       // crashed the worker (illegal address, signal)
  Skipped,       // not run (filtered out, budget exhausted, already tuned)
};

using VerdictName = EnumName<Verdict>;
inline constexpr VerdictName kVerdictNames[] = {
    {Verdict::Passed, "passed"},         {Verdict::Incorrect, "incorrect"}, {Verdict::NotSupported, "not_supported"},
    {Verdict::Failed, "failed"},         {Verdict::TimedOut, "timed_out"},  {Verdict::Faulted, "faulted"},
    {Verdict::Skipped, "skipped"},
};

constexpr std::string_view to_string(Verdict v) {
  return enum_text(kVerdictNames, v, "?");
}

constexpr std::optional<Verdict> verdict_from_string(std::string_view s) {
  return enum_from_text(kVerdictNames, s);
}

}  // namespace cktune
