#include "cli/app.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/core/log.hpp"
#include "cktune_build_info.hpp"
#include "cli/common.hpp"

namespace cktune::cli {

namespace {
int g_exit_code = 0;

void print_error(const std::string& what, const std::string& hint) {
  std::fputs(fmt::format("cktune: error: {}\n", what).c_str(), stderr);
  if (!hint.empty()) std::fputs(fmt::format("cktune: hint: {}\n", hint).c_str(), stderr);
}

// Visible verbs (hidden ones such as `worker` are left out of suggestions and lists).
std::vector<std::string> verb_names(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); }))
    out.push_back(sub->get_name());
  return out;
}

// Every long option name ("--iters") of an app and, through fallthrough, of the top level.
std::vector<std::string> long_options(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::App* a = &app; a != nullptr; a = a->get_parent())
    for (const CLI::Option* o : a->get_options())
      for (const auto& n : o->get_lnames()) out.push_back("--" + n);
  return out;
}

// A usage error with an optional "did you mean" and a pointer to the verb's help. Exit code 2.
int usage_error(const std::string& what, const std::string& suggestion, const std::string& help_for) {
  std::string msg = suggestion.empty() ? what : fmt::format("{}: did you mean '{}'?", what, suggestion);
  print_error(msg, help_for.empty() ? "run `cktune --help` for the commands"
                                    : fmt::format("run `cktune help {}` for its options", help_for));
  return static_cast<int>(ExitCode::Usage);
}

// Checks CLI11 only reports as "arguments were not expected": an unknown verb, an unknown --flag.
// Returns an exit code when the command line is wrong, nullopt to let CLI11 parse it.
std::optional<int> precheck(const CLI::App& app, const std::vector<std::string>& in_order) {
  size_t i = 0;
  // Top-level flags before the verb (all of them are value-less).
  while (i < in_order.size() && in_order[i].size() > 1 && in_order[i][0] == '-') ++i;
  if (i == in_order.size()) return std::nullopt;  // --help, --version, or no verb: CLI11 answers
  const std::string& verb = in_order[i];
  const std::vector<std::string> verbs = verb_names(app);
  const CLI::App* sub = nullptr;
  try {
    sub = app.get_subcommand(verb);
  } catch (const CLI::OptionNotFound&) {
    return usage_error(fmt::format("unknown command '{}'", verb), closest_match(verb, verbs), "");
  }
  if (verb == "help") {
    // `cktune help [VERB]` is answered here: handed to CLI11, a VERB after `help` would be taken for a
    // second subcommand.
    if (i + 1 < in_order.size()) {
      const std::string& target = in_order[i + 1];
      try {
        std::fputs(app.get_subcommand(target)->help("cktune").c_str(), stdout);
      } catch (const CLI::OptionNotFound&) {
        return usage_error(fmt::format("unknown command '{}'", target), closest_match(target, verbs), "");
      }
    } else {
      std::fputs(app.help().c_str(), stdout);
    }
    return 0;
  }
  const std::vector<std::string> known = long_options(*sub);
  for (size_t j = i + 1; j < in_order.size(); ++j) {
    const std::string& a = in_order[j];
    if (a == "--") break;  // everything after is positional
    if (a.size() < 3 || a.rfind("--", 0) != 0) continue;
    const std::string name = a.substr(0, a.find('='));
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    return usage_error(fmt::format("unknown option '{}' for 'cktune {}'", name, verb), closest_match(name, known),
                       verb);
  }
  return std::nullopt;
}

std::string version_text() {
#if defined(CKTUNE_GPU_ARCHS)
  std::string archs = CKTUNE_GPU_ARCHS;  // src/gpu/CMakeLists.txt: the device code this binary carries
#else
  std::string archs;
#endif
  return fmt::format("cktune {} (backend: {}, device code: {}, source: {})", CKTUNE_VERSION, CKTUNE_BUILD_BACKEND,
                     archs.empty() ? "none" : archs, CKTUNE_BUILD_REVISION);
}

void register_help_and_version(CLI::App& app) {
  // Listed in --help; precheck() answers `cktune help [VERB]` before CLI11 parses.
  app.add_subcommand("help", "Show the help of the program or of one command: cktune help VERB");
  auto* version = app.add_subcommand("version", "Print the version, GPU backend, device code targets and source revision");
  version->callback([] { std::fputs((version_text() + "\n").c_str(), stdout); });
}
}  // namespace

void set_exit_code(int code) { g_exit_code = code; }

int run(int argc, char** argv) {
  CLI::App app{"cktune: capture, benchmark and tune AITER GEMM and fused-MoE kernel tables"};
  app.name("cktune");
  app.set_version_flag("--version", version_text());
  app.require_subcommand(1);
  // Subcommands copy these when created: defaults shown in every --help, and top-level flags
  // (-v, -q) accepted after the verb too.
  app.option_defaults()->always_capture_default();
  app.fallthrough();
  app.footer("Run `cktune help VERB` (or `cktune VERB --help`) for a command's options.");
  int verbose = 0;
  bool quiet = false;
  app.add_flag("-v,--verbose", verbose, "More log output on stderr (-vv for trace)");
  app.add_flag("-q,--quiet", quiet, "Only warnings and errors on stderr");
  app.parse_complete_callback([&] {
    set_verbosity(quiet ? -1 : verbose);
    set_verbosity_level(quiet ? -1 : verbose);
  });
  set_command_line(argc, argv);

  register_discover(app);
  register_capture(app);
  register_bench(app);
  register_tune(app);
  register_compare(app);
  register_report(app);
  register_merge(app);
  register_list(app);
  register_ck_instances(app);
  register_worker(app);
  register_help_and_version(app);

  // AITER's tuners spell the profile file "-o2"; CLI11 takes single-dash names of one letter only.
  std::vector<std::string> in_order;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-o2") a = "--profile_file";
    else if (a.rfind("-o2=", 0) == 0) a = "--profile_file=" + a.substr(4);
    in_order.push_back(std::move(a));
  }
  if (auto code = precheck(app, in_order)) return *code;
  std::vector<std::string> args(in_order.rbegin(), in_order.rend());  // CLI11 takes them reversed
  try {
    app.parse(args);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return static_cast<int>(ExitCode::Usage);
  } catch (const GpuError& e) {
    print_error(e.what(), e.hint());
    return static_cast<int>(ExitCode::GpuFailure);
  } catch (const Error& e) {
    print_error(e.what(), e.hint());
    return static_cast<int>(ExitCode::Error);
  } catch (const std::exception& e) {
    print_error(fmt::format("internal error: {}", e.what()), "please report this with the command line");
    return static_cast<int>(ExitCode::Internal);
  }
  return g_exit_code;
}

}  // namespace cktune::cli
