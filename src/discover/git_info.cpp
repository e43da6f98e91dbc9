#include "cktune/discover/git_info.hpp"

#include <fmt/format.h>

#include "cktune/discover/process.hpp"

namespace cktune::discover {

std::string_view to_string(Ancestry a) {
  return enum_text(kAncestryNames, a, "unknown");
}

namespace {
std::string first_line(const std::string& s) {
  auto end = s.find_first_of("\r\n");
  return s.substr(0, end);
}

// Read-only queries: allow checkouts owned by another user (pip installs as root, user runs as self),
// which git otherwise refuses with "dubious ownership".
ProcessResult git(const std::string& dir, std::vector<std::string> args, double timeout_s) {
  std::vector<std::string> argv = {"git", "-c", "safe.directory=*", "-C", dir};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, timeout_s);
}
}  // namespace

GitInfo git_info(const std::string& dir, std::string_view minimum, double timeout_s) {
  GitInfo g;
  if (find_in_path("git").empty()) {
    g.error = "git not found in PATH";
    g.ancestry_note = g.error;
    return g;
  }
  auto top = git(dir, {"rev-parse", "--show-toplevel"}, timeout_s);
  if (!top.ok()) {
    if (!top.error.empty()) g.error = top.error;  // not a checkout is not an error
    g.ancestry_note = "not a git checkout";
    return g;
  }
  g.in_repo = true;
  g.toplevel = first_line(top.out);
  if (auto head = git(dir, {"rev-parse", "HEAD"}, timeout_s); head.ok()) g.commit = first_line(head.out);
  if (auto d = git(dir, {"describe", "--tags", "--always", "--dirty"}, timeout_s); d.ok()) g.describe = first_line(d.out);
  if (auto s = git(dir, {"rev-parse", "--is-shallow-repository"}, timeout_s); s.ok()) g.shallow = first_line(s.out) == "true";

  // Exit 0: ancestor; 1: not an ancestor; anything else (128: the commit is not in this clone).
  auto anc = git(dir, {"merge-base", "--is-ancestor", std::string(minimum), "HEAD"}, timeout_s);
  if (anc.started && !anc.timed_out && anc.exit_code == 0) {
    g.descends = Ancestry::Yes;
  } else if (anc.started && !anc.timed_out && anc.exit_code == 1) {
    g.descends = Ancestry::No;
  } else {
    g.descends = Ancestry::Unknown;
    if (anc.timed_out) {
      g.ancestry_note = anc.error;
    } else {
      g.ancestry_note = g.shallow ? fmt::format("commit {} is not in this shallow clone", minimum.substr(0, 12))
                                  : fmt::format("commit {} is not in this clone", minimum.substr(0, 12));
    }
  }
  return g;
}

}  // namespace cktune::discover
