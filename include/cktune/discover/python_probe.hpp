#pragma once
// The Python side of the environment: AITER, sglang, vLLM (and torch/triton for context). One short
// python3 run with a timeout asks importlib for package metadata and module locations without
// importing the packages (importing aiter can take minutes and touch the GPU).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cktune/discover/git_info.hpp"

namespace cktune::discover {

struct PackageInfo {
  std::string name;         // distribution name: "amd-aiter", "sglang"
  std::string version;
  std::string location;     // where the distribution metadata lives (site-packages, or a source tree)
  bool editable = false;    // direct_url.json says dir_info.editable (pip install -e)
  std::string direct_url;   // where it was installed from ("file:///src/aiter", "git+https://...")
  std::string vcs_commit;   // commit recorded by pip for VCS installs
};

struct ModuleInfo {
  std::string name;         // import name: "aiter"
  std::string path;         // package folder (or module file) found by importlib.util.find_spec
  std::string error;        // find_spec raised
};

struct PythonInfo {
  bool found = false;       // the interpreter ran and printed the probe's JSON
  std::string interpreter;  // what was asked for ("python3")
  std::string executable;   // sys.executable
  std::string version;      // "3.12.3"
  std::string error;        // why not found
  std::vector<PackageInfo> packages;   // installed ones only
  std::vector<ModuleInfo> modules;     // found ones (or with an error) only
  std::vector<std::string> egg_links;  // *.egg-link files naming aiter on sys.path (setup.py develop)

  const PackageInfo* package(std::string_view name) const;
  const ModuleInfo* module(std::string_view name) const;
};

// The probe script (printed JSON on stdout); exposed for tests and docs.
std::string_view probe_script();

// Run `interpreter` (default python3) with the probe. Never throws.
PythonInfo probe_python(const std::string& interpreter, double timeout_s = 20.0);

// Parse the probe's JSON output (throws nothing: a malformed answer becomes `error`).
PythonInfo parse_probe_output(std::string_view json_text);

// A path inside a site-packages or dist-packages folder (a regular, non-editable install).
bool under_site_packages(std::string_view path);

struct AiterInstall {
  bool found = false;
  std::string note;          // why not found ("no Python", "aiter is not installed")
  std::string package;       // distribution name ("amd-aiter"), "" when only the module was found
  std::string version;
  std::string path;          // the aiter package folder
  bool dev_mode = false;     // editable / develop install: the source tree is what runs
  std::string dev_reason;    // "editable install (direct_url.json)", "egg-link", "outside site-packages"
  std::string vcs_commit;    // recorded by pip for a VCS install (when no checkout is at hand)
  std::optional<GitInfo> git;  // when `path` was looked up with git
};

// Combine the probe's view of aiter; with `query_git`, ask git about the checkout at the path.
AiterInstall analyse_aiter(const PythonInfo& py, bool query_git, std::string_view minimum_commit, double timeout_s = 10.0);

struct PythonPackageStatus {
  std::string name;                 // "sglang"
  bool installed = false;
  std::string version;
  std::string path;
  std::string minimum;              // expected minimum version ("" = none)
  std::optional<bool> meets_minimum;  // nullopt: no minimum, not installed, or unparsable version
};

PythonPackageStatus package_status(const PythonInfo& py, std::string_view dist_name, std::string_view minimum = {});

}  // namespace cktune::discover
