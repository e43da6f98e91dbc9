#include "cli/app.hpp"

#include <cstdio>
#include <exception>

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/core/log.hpp"
#include "cli/common.hpp"

namespace cktune::cli {

namespace {
int g_exit_code = 0;

void print_error(const std::string& what, const std::string& hint) {
  std::fputs(fmt::format("cktune: error: {}\n", what).c_str(), stderr);
  if (!hint.empty()) std::fputs(fmt::format("cktune: hint: {}\n", hint).c_str(), stderr);
}
}  // namespace

void set_exit_code(int code) { g_exit_code = code; }

int run(int argc, char** argv) {
  CLI::App app{"cktune: capture, benchmark and tune AITER GEMM and fused-MoE kernel tables"};
  app.set_version_flag("--version", std::string("cktune ") + CKTUNE_VERSION);
  app.require_subcommand(1);
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
  register_worker(app);

  // AITER's tuners spell the profile file "-o2"; CLI11 takes single-dash names of one letter only.
  std::vector<std::string> args;
  for (int i = argc - 1; i >= 1; --i) {
    std::string a = argv[i];
    if (a == "-o2") a = "--profile_file";
    else if (a.rfind("-o2=", 0) == 0) a = "--profile_file=" + a.substr(4);
    args.push_back(std::move(a));
  }
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
