#pragma once
// Fault injection for testing the watchdog and the judge (docs/cli/tune.md, --inject-fault).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cktune {

enum class FaultKind { None, Hang, Crash, Wrong, Partial };
std::string_view to_string(FaultKind k);
std::optional<FaultKind> fault_from_string(std::string_view s);

struct InjectedFault {
  FaultKind kind = FaultKind::None;
  std::string instance;  // instance name it applies to
};
// "hang@name,crash@other" -> list. Throws Error on bad syntax.
std::vector<InjectedFault> parse_faults(const std::string& spec);

}  // namespace cktune
