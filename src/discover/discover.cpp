// discover: gather (each step a small function), derive warnings, render as JSON or text.
#include "cktune/discover/discover.hpp"

#include "cktune/aiter/instances.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cktune/aiter/instances.hpp"
#include "cktune/core/peaks.hpp"
#include "cktune/discover/versions.hpp"
#include "cktune/formats/family.hpp"
#include "cktune/engine/registry.hpp"

namespace cktune::discover {

namespace {

// ---- gather ----

std::vector<GpuEntry> gather_gpus(const DiscoverOptions& o, const GpuStatusReport& smi, std::string& note) {
  std::vector<GpuEntry> out;
  for (auto& d : gpu::enumerate_gpus(&note, o.free_memory)) {
    GpuEntry e{std::move(d), std::nullopt};
    if (const auto* s = find_status(smi, e.device.pci_bus_id)) e.status = *s;
    out.push_back(std::move(e));
  }
  return out;
}

[[maybe_unused]] std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    auto sep = text.find_first_of(";,");
    auto item = text.substr(0, sep);
    if (!item.empty()) out.emplace_back(item);
    if (sep == std::string_view::npos) break;
    text.remove_prefix(sep + 1);
  }
  return out;
}

}  // namespace

BuildContents build_contents_of_this_binary() {
  BuildContents b;
  b.version = CKTUNE_VERSION;
  b.gpu_backend = std::string(gpu::backend_name());
  b.backends.push_back("cpu");
  if (b.gpu_backend != "none") b.backends.push_back("gpu");
#if defined(CKTUNE_GPU_ARCHS)
  for (auto& a : split_list(CKTUNE_GPU_ARCHS)) {
    // CMake spells CUDA archs as "90a"; show them the way the tables and nvcc do.
    b.gpu_archs.push_back(a.rfind("gfx", 0) == 0 || a.rfind("sm_", 0) == 0 ? a : "sm_" + a);
  }
#endif
  // The registry describes instances from plain data: no device is touched here.
  try {
    for (const auto& e : build_contents()) {
      b.families.push_back({std::string(to_string(e.backend)), std::string(family_name(e.family)), e.instances, e.test_only});
    }
  } catch (const std::exception& e) {
    b.note = fmt::format("instance registry failed: {}", e.what());
  }
  if (b.families.empty() && b.note.empty()) b.note = "no kernel family has instances in this build";
  return b;
}

DiscoverReport discover(const DiscoverOptions& o, const EnvMap& env) {
  DiscoverReport r;
  r.runtime = gpu::runtime_versions();
  if (o.query_smi) r.smi = query_gpu_status();
  r.gpus = gather_gpus(o, r.smi, r.gpu_note);
  r.visibility = visibility(env);
  r.cu_num_override = env_value(env, "CU_NUM");

  std::vector<std::pair<std::string, int>> gfx_cu;
  for (const auto& g : r.gpus) gfx_cu.emplace_back(g.device.gfx, g.device.cu_num);
  r.device_keys = device_keys(gfx_cu, env);

  if (o.query_python) {
    r.python = probe_python(o.python, o.python_timeout_s);
  } else {
    r.python.interpreter = o.python;
    r.python.error = "not asked (--no-python)";
  }
  r.aiter = analyse_aiter(r.python, o.query_git, kMinAiterCommit);
  if (r.python.found) {
    r.packages.push_back(package_status(r.python, "sglang", kMinSglangVersion));
    r.packages.push_back(package_status(r.python, "vllm"));
    r.packages.push_back(package_status(r.python, "torch"));
    r.packages.push_back(package_status(r.python, "triton"));
  }

  r.configs = analyse_config_variables(env, r.device_keys);
  if (r.aiter.found && !r.aiter.path.empty()) {
    for (auto& v : analyse_default_tables(r.aiter.path, env, r.device_keys)) r.configs.push_back(std::move(v));
  }
  r.build = build_contents_of_this_binary();
  r.verification = verification_status(r);
  r.warnings = derive_warnings(r);
  return r;
}

std::vector<std::string> verification_status(const DiscoverReport& r) {
  bool amd = r.build.gpu_backend == "hip", nvidia = r.build.gpu_backend == "cuda";
  for (const auto& g : r.gpus) {
    if (aiter::is_amd_gfx(g.device.gfx)) amd = true;
    if (g.device.gfx.rfind("sm_", 0) == 0) nvidia = true;
  }
  std::vector<std::string> v;
  v.push_back("CPU backend: the whole workflow (capture, bench, tune, compare, report, merge) runs in CI against "
              "the CPU reference");
  if (nvidia)
    v.push_back("NVIDIA: cktune's kernels and cuBLASLt are verified and timed on H100 and H200 (sm_90a; "
                "docs/perf.md); other NVIDIA GPUs are untested");
  if (amd)
    v.push_back("AMD: nothing in cktune has run on AMD hardware. The HIP build compiles and links in CI (Debian's "
                "clang-19 and ROCm 5.2 packages, device code for gfx90a) and the kernels compile for gfx942; "
                "cktune's own kernels have no CDNA code yet (they report 'not supported' here) and AITER's CK / "
                "CK-tile instances are listed (ck-instances, merge --check) but not built into this binary, so "
                "`tune` on an AMD GPU writes no AITER row and says why");
  return v;
}

std::vector<std::string> derive_warnings(const DiscoverReport& r) {
  std::vector<std::string> w;
  if (r.gpus.empty() && r.build.gpu_backend != "none") {
    w.push_back(fmt::format("no GPU visible to the {} runtime: {}", r.build.gpu_backend, r.gpu_note));
  }
  for (const auto& v : r.visibility) {
    if (v.set && v.hides_all) w.push_back(fmt::format("{}='{}' hides every GPU from this process", v.name, v.value));
  }
  if (r.cu_num_override) {
    for (const auto& g : r.gpus) {
      if (std::to_string(g.device.cu_num) != *r.cu_num_override) {
        w.push_back(fmt::format("CU_NUM={} overrides GPU {}'s {} compute units: AITER looks up rows with cu_num {}",
                                *r.cu_num_override, g.device.index, g.device.cu_num, *r.cu_num_override));
        break;
      }
    }
  }
  if (r.aiter.found && r.aiter.git && r.aiter.git->in_repo) {
    if (r.aiter.git->descends == Ancestry::No) {
      w.push_back(fmt::format("AITER at {} (commit {}) does not descend from {}, the minimum the sglang playbook "
                              "requires",
                              r.aiter.path, r.aiter.git->commit.substr(0, 12), kMinAiterCommit.substr(0, 12)));
    }
  }
  for (const auto& p : r.packages) {
    if (p.meets_minimum == false) {
      w.push_back(fmt::format("{} {} is older than the expected {}", p.name, p.version, p.minimum));
    }
  }
  for (const auto& v : r.configs) {
    if (v.source == "environment" && v.files.empty()) w.push_back(fmt::format("{} is set but names no file", v.name));
    for (const auto& f : v.files) {
      if (!f.exists || !f.error.empty()) {
        w.push_back(fmt::format("{}: {}: {}", v.name, f.path, f.error.empty() ? "cannot be read" : f.error));
        continue;
      }
      if (f.duplicate_keys > 0) {
        w.push_back(fmt::format("{}: {} repeats {} key(s); AITER's loader refuses duplicate keys", v.name, f.path,
                                f.duplicate_keys));
      }
      if (f.tuned && f.has_cu_num && f.rows > 0) {
        for (size_t d = 0; d < r.device_keys.size() && d < f.matching.size(); ++d) {
          if (f.matching[d] == 0) {
            w.push_back(fmt::format("{}: no row of {} matches this device ({}, cu_num {}): the table is never used "
                                    "here",
                                    v.name, f.path, r.device_keys[d].gfx, r.device_keys[d].cu_num));
          }
        }
      }
    }
  }
  return w;
}

// ---- JSON ----

namespace {
using Json = nlohmann::ordered_json;

template <class T>
Json opt(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}
Json str_or_null(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }

Json gpu_json(const GpuEntry& g) {
  const auto& d = g.device;
  Json j = {
      {"index", d.index},
      {"name", d.name},
      {"arch", d.gfx},
      {"arch_full", d.arch_full},
      {"cu_num", d.cu_num},
      {"memory_total_bytes", d.memory_total_bytes},
      {"memory_free_bytes", opt(d.memory_free_bytes)},
      {"sm_clock_mhz", d.sm_clock_khz ? Json(d.sm_clock_khz / 1000) : Json(nullptr)},
      {"memory_clock_mhz", d.memory_clock_khz ? Json(d.memory_clock_khz / 1000) : Json(nullptr)},
      {"memory_bus_width_bits", d.memory_bus_width_bits},
      {"l2_bytes", d.l2_bytes},
      {"shared_memory_per_block_optin", d.shared_memory_per_block_optin},
      {"pci_bus_id", str_or_null(d.pci_bus_id)},
      {"uuid", str_or_null(d.uuid)},
  };
  if (d.compute_major) j["compute_capability"] = fmt::format("{}.{}", d.compute_major, d.compute_minor);
  // The datasheet rates `report` holds shapes against (core/peaks.hpp); null for a GPU not in its table.
  if (auto p = datasheet_peaks(d.name)) {
    j["datasheet_peaks"] = {{"model", p->model},           {"fp8_tflops", p->fp8_tflops},
                            {"int8_tops", p->int8_tops},    {"bf16_tflops", p->bf16_tflops},
                            {"fp4_tflops", p->fp4_tflops},  {"memory_tbps", p->memory_tbps}};
  } else {
    j["datasheet_peaks"] = nullptr;
  }
  if (g.status) {
    const auto& s = *g.status;
    j["state"] = to_string(s.state);
    j["utilization_pct"] = opt(s.utilization_pct);
    j["processes"] = opt(s.processes);
    j["memory_used_bytes"] = opt(s.memory_used_bytes);
    j["current_sm_clock_mhz"] = opt(s.sm_clock_mhz);
    j["current_memory_clock_mhz"] = opt(s.memory_clock_mhz);
    j["max_sm_clock_mhz"] = opt(s.max_sm_clock_mhz);
    j["max_memory_clock_mhz"] = opt(s.max_memory_clock_mhz);
  } else {
    j["state"] = to_string(BusyState::Unknown);
  }
  return j;
}

Json config_file_json(const ConfigFile& f, const std::vector<DeviceKey>& keys) {
  Json matching = Json::array();
  for (size_t d = 0; d < keys.size() && d < f.matching.size(); ++d) {
    matching.push_back({{"gfx", keys[d].gfx}, {"cu_num", keys[d].cu_num}, {"rows", f.matching[d]}});
  }
  Json per_key = Json::array();
  for (const auto& k : f.keys) {
    per_key.push_back({{"gfx", str_or_null(k.gfx)},
                       {"cu_num", k.cu_num >= 0 ? Json(k.cu_num) : Json(nullptr)},
                       {"rows", k.rows}});
  }
  return {
      {"path", f.path},
      {"exists", f.exists},
      {"error", str_or_null(f.error)},
      {"family", f.family ? Json(family_name(*f.family)) : Json(nullptr)},
      {"family_from", str_or_null(f.family_from)},
      {"tuned", f.tuned},
      {"has_gfx", f.has_gfx},
      {"has_cu_num", f.has_cu_num},
      {"rows", f.rows},
      {"rows_per_key", per_key},
      {"matching_rows", matching},
      {"duplicate_keys", f.duplicate_keys},
  };
}

Json build_json(const BuildContents& b) {
  Json fams = Json::array();
  for (const auto& f : b.families) {
    fams.push_back({{"backend", f.backend}, {"family", f.family}, {"instances", f.instances}, {"test_only", f.test_only}});
  }
  return {{"version", b.version},      {"gpu_backend", b.gpu_backend}, {"backends", b.backends},
          {"gpu_archs", b.gpu_archs},  {"families", fams},             {"note", str_or_null(b.note)}};
}
}  // namespace

Json to_json(const DiscoverReport& r) {
  Json gpus = Json::array();
  for (const auto& g : r.gpus) gpus.push_back(gpu_json(g));

  Json vis = Json::object();
  for (const auto& v : r.visibility) vis[v.name] = v.set ? Json(v.value) : Json(nullptr);

  Json keys = Json::array();
  for (const auto& k : r.device_keys) keys.push_back({{"gfx", k.gfx}, {"cu_num", k.cu_num}});

  Json aiter = {{"found", r.aiter.found}, {"note", str_or_null(r.aiter.note)}};
  if (r.aiter.found) {
    aiter["package"] = str_or_null(r.aiter.package);
    aiter["version"] = str_or_null(r.aiter.version);
    aiter["path"] = str_or_null(r.aiter.path);
    aiter["dev_mode"] = r.aiter.dev_mode;
    aiter["dev_reason"] = str_or_null(r.aiter.dev_reason);
    aiter["vcs_commit"] = str_or_null(r.aiter.vcs_commit);
    aiter["minimum_commit"] = kMinAiterCommit;
    if (r.aiter.git) {
      const auto& g = *r.aiter.git;
      aiter["git"] = {{"in_repo", g.in_repo},
                      {"toplevel", str_or_null(g.toplevel)},
                      {"commit", str_or_null(g.commit)},
                      {"describe", str_or_null(g.describe)},
                      {"shallow", g.shallow},
                      {"descends_from_minimum", to_string(g.descends)},
                      {"note", str_or_null(g.ancestry_note)}};
    } else {
      aiter["git"] = nullptr;
    }
  }

  Json packages = Json::object();
  for (const auto& p : r.packages) {
    packages[p.name] = {{"installed", p.installed},
                        {"version", str_or_null(p.version)},
                        {"path", str_or_null(p.path)},
                        {"minimum", str_or_null(p.minimum)},
                        {"meets_minimum", opt(p.meets_minimum)}};
  }

  Json configs = Json::array();
  for (const auto& v : r.configs) {
    Json files = Json::array();
    for (const auto& f : v.files) files.push_back(config_file_json(f, r.device_keys));
    configs.push_back({{"variable", v.name},
                       {"value", v.value},
                       {"source", v.source},
                       {"family", v.family ? Json(family_name(*v.family)) : Json(nullptr)},
                       {"files", files}});
  }

  return {
      {"gpus", {{"backend", r.build.gpu_backend}, {"count", r.gpus.size()}, {"note", str_or_null(r.gpu_note)},
                {"devices", gpus}}},
      {"runtime", {{"backend", r.runtime.backend},
                   {"runtime_version", str_or_null(r.runtime.runtime_version)},
                   {"driver_supports", str_or_null(r.runtime.driver_version)},
                   {"driver_version", str_or_null(r.smi.driver_version)},
                   {"error", str_or_null(r.runtime.error)}}},
      {"management", {{"source", str_or_null(r.smi.source)}, {"devices", r.smi.devices.size()},
                      {"error", str_or_null(r.smi.error)}}},
      {"visibility", vis},
      {"cu_num_override", r.cu_num_override ? Json(*r.cu_num_override) : Json(nullptr)},
      {"device_keys", keys},
      {"python", {{"found", r.python.found},
                  {"interpreter", r.python.interpreter},
                  {"executable", str_or_null(r.python.executable)},
                  {"version", str_or_null(r.python.version)},
                  {"error", str_or_null(r.python.error)}}},
      {"aiter", aiter},
      {"packages", packages},
      {"aiter_configs", configs},
      {"build", build_json(r.build)},
      {"verification", r.verification},
      {"warnings", r.warnings},
  };
}

// ---- text ----

namespace {
std::string gib(std::uint64_t bytes) { return fmt::format("{:.1f}", static_cast<double>(bytes) / (1ull << 30)); }

std::string gpu_line(const GpuEntry& g) {
  const auto& d = g.device;
  std::string memory = d.memory_free_bytes ? fmt::format("{}/{} GiB", gib(*d.memory_free_bytes), gib(d.memory_total_bytes))
                                           : fmt::format("{} GiB", gib(d.memory_total_bytes));
  std::string clocks = fmt::format("{}/{}", d.sm_clock_khz / 1000, d.memory_clock_khz / 1000);
  std::string state = "unknown";
  if (g.status) {
    const auto& s = *g.status;
    state = std::string(to_string(s.state));
    std::vector<std::string> detail;
    if (s.utilization_pct) detail.push_back(fmt::format("{}% busy", *s.utilization_pct));
    if (s.processes) detail.push_back(fmt::format("{} proc", *s.processes));
    if (s.sm_clock_mhz) detail.push_back(fmt::format("now {} MHz", *s.sm_clock_mhz));
    if (!detail.empty()) state += " (" + fmt::format("{}", fmt::join(detail, ", ")) + ")";
  }
  return fmt::format("  {:<3}{:<28} {:<8} {:>6}  {:<18} {:<11} {:>6}  {}\n", d.index, d.name, d.gfx, d.cu_num, memory,
                     clocks, fmt::format("{}M", d.l2_bytes >> 20), state);
}

std::string yes_no(bool b) { return b ? "yes" : "no"; }
}  // namespace

std::string render_text(const DiscoverReport& r) {
  std::string out;
  auto add = [&](const std::string& s) { out += s; };

  add(fmt::format("cktune {} (GPU backend: {}{})\n\n", r.build.version, r.build.gpu_backend,
                  r.build.gpu_archs.empty() ? "" : fmt::format(", device code {}", fmt::join(r.build.gpu_archs, " "))));

  // GPUs
  std::string versions;
  if (!r.runtime.runtime_version.empty()) versions += fmt::format("{} runtime {}", r.runtime.backend, r.runtime.runtime_version);
  if (!r.runtime.driver_version.empty()) versions += fmt::format(", driver supports {}", r.runtime.driver_version);
  if (!r.smi.driver_version.empty()) versions += fmt::format(", driver {}", r.smi.driver_version);
  add(fmt::format("GPUs{}\n", versions.empty() ? "" : " (" + versions + ")"));
  if (r.gpus.empty()) {
    add(fmt::format("  none: {}\n", r.gpu_note.empty() ? r.runtime.error : r.gpu_note));
  } else {
    add(fmt::format("  {:<3}{:<28} {:<8} {:>6}  {:<18} {:<11} {:>6}  {}\n", "#", "name", "arch", "cu_num",
                    "memory free/total", "clk sm/mem", "L2", "state"));
    for (const auto& g : r.gpus) add(gpu_line(g));
    // One line per model: the peaks the report's hardware floors are counted from.
    std::vector<std::string> models;
    for (const auto& g : r.gpus) {
      auto p = datasheet_peaks(g.device.name);
      if (!p || std::find(models.begin(), models.end(), p->model) != models.end()) continue;
      models.push_back(p->model);
      add(fmt::format("  {} datasheet, dense: fp8 {:g}, int8 {:g}, bf16 {:g}{} TFLOP/s; memory {:g} TB/s\n", p->model,
                      p->fp8_tflops, p->int8_tops, p->bf16_tflops,
                      p->fp4_tflops > 0 ? fmt::format(", fp4 {:g}", p->fp4_tflops) : std::string(), p->memory_tbps));
    }
  }
  if (r.smi.source.empty() && r.build.gpu_backend != "none") add(fmt::format("  busy/free: unknown ({})\n", r.smi.error));

  // Visibility
  add("\nVisibility\n");
  for (const auto& v : r.visibility) add(fmt::format("  {:<22} {}\n", v.name, v.set ? "'" + v.value + "'" : "(unset)"));
  add(fmt::format("  {:<22} {}\n", "CU_NUM", r.cu_num_override ? "'" + *r.cu_num_override + "'" : "(unset)"));
  if (!r.device_keys.empty()) {
    std::vector<std::string> keys;
    for (const auto& k : r.device_keys) keys.push_back(fmt::format("{}/{}", k.gfx, k.cu_num));
    add(fmt::format("  AITER keys rows by gfx/cu_num: {}\n", fmt::join(keys, ", ")));
  }

  // Python side
  add("\nPython\n");
  if (!r.python.found) {
    add(fmt::format("  not available: {}\n", r.python.error));
  } else {
    add(fmt::format("  {} ({})\n", r.python.executable, r.python.version));
    if (!r.aiter.found) {
      add(fmt::format("  {:<8} not found: {}\n", "aiter", r.aiter.note));
    } else {
      add(fmt::format("  {:<8} {} {} at {}\n", "aiter", r.aiter.package.empty() ? "(no metadata)" : r.aiter.package,
                      r.aiter.version, r.aiter.path));
      add(fmt::format("  {:<8} dev mode: {}{}\n", "", yes_no(r.aiter.dev_mode),
                      r.aiter.dev_mode ? " (" + r.aiter.dev_reason + ")" : ""));
      if (r.aiter.git && r.aiter.git->in_repo) {
        const auto& g = *r.aiter.git;
        add(fmt::format("  {:<8} git {} ({}), descends from {}: {}{}\n", "", g.commit.substr(0, 12), g.describe,
                        kMinAiterCommit.substr(0, 12), to_string(g.descends),
                        g.ancestry_note.empty() ? "" : " (" + g.ancestry_note + ")"));
      } else if (!r.aiter.vcs_commit.empty()) {
        add(fmt::format("  {:<8} installed from commit {} (no checkout: ancestry unknown)\n", "", r.aiter.vcs_commit));
      } else {
        add(fmt::format("  {:<8} not a git checkout: commit unknown\n", ""));
      }
    }
    for (const auto& p : r.packages) {
      std::string req;
      if (p.meets_minimum) req = fmt::format(" (>= {}: {})", p.minimum, *p.meets_minimum ? "ok" : "TOO OLD");
      add(fmt::format("  {:<8} {}{}\n", p.name, p.installed ? p.version : "not installed", req));
    }
  }

  // Tables
  add("\nAITER tables\n");
  if (r.configs.empty()) add("  no AITER_CONFIG_* variable set and no AITER install to read defaults from\n");
  for (const auto& v : r.configs) {
    add(fmt::format("  {} ({})\n", v.name, v.source == "default" ? "unset: AITER's shipped tables" : "set"));
    for (const auto& f : v.files) {
      if (!f.exists || !f.error.empty()) {
        add(fmt::format("    {}: {}\n", f.path, f.error));
        continue;
      }
      std::vector<std::string> match;
      for (size_t d = 0; d < r.device_keys.size() && d < f.matching.size(); ++d)
        match.push_back(fmt::format("{} match {}/{}", f.matching[d], r.device_keys[d].gfx, r.device_keys[d].cu_num));
      add(fmt::format("    {}: {} {}, {} rows{}{}{}\n", f.path, f.family ? family_name(*f.family) : "unknown family",
                      f.tuned ? "tuned" : "untuned", f.rows, match.empty() ? "" : ", " + fmt::format("{}", fmt::join(match, ", ")),
                      f.has_gfx ? "" : " (no gfx column: keyed by cu_num)",
                      f.duplicate_keys ? fmt::format(", {} duplicate keys", f.duplicate_keys) : ""));
    }
  }

  // Build
  add("\nThis build\n");
  add(fmt::format("  backends: {}\n", fmt::join(r.build.backends, ", ")));
  if (r.build.families.empty()) {
    add(fmt::format("  families: {}\n", r.build.note));
  } else {
    for (const auto& f : r.build.families) {
      add(fmt::format("  {:<4} {:<30} {} instances{}\n", f.backend, f.family, f.instances,
                      f.test_only ? fmt::format(" (+{} test-only)", f.test_only) : ""));
    }
  }

  add("\nVerified\n");
  for (const auto& line : r.verification) add("  - " + line + "\n");

  if (!r.warnings.empty()) {
    add("\nWarnings\n");
    for (const auto& w : r.warnings) add("  - " + w + "\n");
  }
  return out;
}

}  // namespace cktune::discover
