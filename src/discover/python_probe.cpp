#include "cktune/discover/python_probe.hpp"

#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cktune/discover/process.hpp"
#include "cktune/discover/versions.hpp"

namespace cktune::discover {

namespace {
// Metadata and find_spec only: nothing is imported but the standard library. Prints one JSON object.
constexpr std::string_view kProbeScript = R"PY(
import json, os, sys
import importlib.util
import importlib.metadata as md

out = {"executable": sys.executable, "version": sys.version.split()[0],
       "packages": [], "modules": [], "egg_links": []}

for name in ("amd-aiter", "aiter", "sglang", "vllm", "torch", "triton"):
    try:
        dist = md.distribution(name)
    except Exception:
        continue
    info = {"name": name, "version": dist.version or "", "location": "", "editable": False,
            "direct_url": "", "vcs_commit": ""}
    try:
        info["location"] = str(dist.locate_file(""))
    except Exception:
        pass
    try:
        text = dist.read_text("direct_url.json")
        if text:
            url = json.loads(text)
            info["direct_url"] = url.get("url", "")
            info["editable"] = bool(url.get("dir_info", {}).get("editable", False))
            info["vcs_commit"] = url.get("vcs_info", {}).get("commit_id", "")
    except Exception:
        pass
    out["packages"].append(info)

for name in ("aiter", "sglang", "vllm"):
    try:
        spec = importlib.util.find_spec(name)
    except Exception as e:
        out["modules"].append({"name": name, "path": "", "error": "%s: %s" % (type(e).__name__, e)})
        continue
    if spec is None:
        continue
    locations = list(spec.submodule_search_locations or [])
    path = locations[0] if locations else (spec.origin or "")
    out["modules"].append({"name": name, "path": path, "error": ""})

for entry in sys.path:
    for egg in ("aiter.egg-link", "amd-aiter.egg-link", "amd_aiter.egg-link"):
        candidate = os.path.join(entry or ".", egg)
        if os.path.isfile(candidate):
            out["egg_links"].append(candidate)

print(json.dumps(out))
)PY";

std::string last_line(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  auto nl = text.rfind('\n');
  return std::string(nl == std::string_view::npos ? text : text.substr(nl + 1));
}

std::string str(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}
}  // namespace

const PackageInfo* PythonInfo::package(std::string_view name) const {
  for (const auto& p : packages)
    if (p.name == name) return &p;
  return nullptr;
}
const ModuleInfo* PythonInfo::module(std::string_view name) const {
  for (const auto& m : modules)
    if (m.name == name) return &m;
  return nullptr;
}

std::string_view probe_script() { return kProbeScript; }

PythonInfo parse_probe_output(std::string_view json_text) {
  PythonInfo py;
  // The probe prints one line of JSON; a sitecustomize or a banner may print before it, so fall back
  // to the last line when the whole text is not JSON.
  auto j = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) j = nlohmann::json::parse(last_line(json_text), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) {
    py.error = "the Python probe printed no JSON";
    return py;
  }
  py.found = true;
  py.executable = str(j, "executable");
  py.version = str(j, "version");
  if (auto it = j.find("packages"); it != j.end() && it->is_array()) {
    for (const auto& p : *it) {
      if (!p.is_object()) continue;
      PackageInfo info;
      info.name = str(p, "name");
      info.version = str(p, "version");
      info.location = str(p, "location");
      info.editable = p.value("editable", false);
      info.direct_url = str(p, "direct_url");
      info.vcs_commit = str(p, "vcs_commit");
      py.packages.push_back(std::move(info));
    }
  }
  if (auto it = j.find("modules"); it != j.end() && it->is_array()) {
    for (const auto& m : *it) {
      if (!m.is_object()) continue;
      py.modules.push_back({str(m, "name"), str(m, "path"), str(m, "error")});
    }
  }
  if (auto it = j.find("egg_links"); it != j.end() && it->is_array()) {
    for (const auto& e : *it)
      if (e.is_string()) py.egg_links.push_back(e.get<std::string>());
  }
  return py;
}

PythonInfo probe_python(const std::string& interpreter, double timeout_s) {
  // Not -I: PYTHONPATH is a common way to point at an AITER checkout, and must count here.
  auto r = run_process({interpreter, "-c", std::string(kProbeScript)}, timeout_s);
  PythonInfo py;
  if (!r.started || r.timed_out || r.exit_code != 0) {
    py.interpreter = interpreter;
    if (!r.started) {
      py.error = r.error;
    } else if (r.timed_out) {
      py.error = fmt::format("{}: {}", interpreter, r.error);
    } else {
      py.error = fmt::format("{} exited with status {}", interpreter, r.exit_code);
      if (auto last = last_line(r.err); !last.empty()) py.error += ": " + last;
    }
    return py;
  }
  py = parse_probe_output(r.out);
  py.interpreter = interpreter;
  return py;
}

bool under_site_packages(std::string_view path) {
  return path.find("/site-packages/") != std::string_view::npos ||
         path.find("/dist-packages/") != std::string_view::npos || path.ends_with("/site-packages") ||
         path.ends_with("/dist-packages");
}

AiterInstall analyse_aiter(const PythonInfo& py, bool query_git, std::string_view minimum_commit, double timeout_s) {
  AiterInstall a;
  if (!py.found) {
    a.note = py.error.empty() ? "no Python interpreter" : "no Python: " + py.error;
    return a;
  }
  const PackageInfo* dist = py.package("amd-aiter");
  if (!dist) dist = py.package("aiter");
  const ModuleInfo* mod = py.module("aiter");
  if (mod && !mod->error.empty()) {
    a.note = "importlib.util.find_spec('aiter') failed: " + mod->error;
  }
  if (!dist && (!mod || mod->path.empty())) {
    if (a.note.empty()) a.note = fmt::format("aiter is not installed for {}", py.executable);
    return a;
  }
  a.found = true;
  if (dist) {
    a.package = dist->name;
    a.version = dist->version;
    a.vcs_commit = dist->vcs_commit;
  }
  a.path = mod ? mod->path : std::string();
  if (dist && dist->editable) {
    a.dev_mode = true;
    a.dev_reason = "editable install (direct_url.json)";
  } else if (!py.egg_links.empty()) {
    a.dev_mode = true;
    a.dev_reason = "develop install (" + py.egg_links.front() + ")";
  } else if (!a.path.empty() && !under_site_packages(a.path)) {
    a.dev_mode = true;
    a.dev_reason = "package found outside site-packages";
  }
  if (query_git && !a.path.empty()) {
    std::filesystem::path p(a.path);
    std::error_code ec;
    std::string dir = std::filesystem::is_directory(p, ec) ? p.string() : p.parent_path().string();
    a.git = git_info(dir, minimum_commit, timeout_s);
  }
  return a;
}

PythonPackageStatus package_status(const PythonInfo& py, std::string_view dist_name, std::string_view minimum) {
  PythonPackageStatus s;
  s.name = std::string(dist_name);
  s.minimum = std::string(minimum);
  if (const auto* p = py.package(dist_name)) {
    s.installed = true;
    s.version = p->version;
    s.path = p->location;
  }
  if (const auto* m = py.module(dist_name); m && !m->path.empty()) s.path = m->path;
  if (s.installed && !minimum.empty()) {
    if (auto c = compare_versions(s.version, minimum)) s.meets_minimum = *c >= 0;
  }
  return s;
}

}  // namespace cktune::discover
