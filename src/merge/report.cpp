#include <algorithm>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "cktune/merge/merge.hpp"

namespace cktune {

namespace {

std::string_view kind_name(TableKind k) { return k == TableKind::Tuned ? "tuned" : "untuned"; }

std::string place(const Finding& f) {
  if (f.file.empty()) return "";
  if (f.line == 0) return f.file + ": ";
  if (f.column == 0) return fmt::format("{}:{}: ", f.file, f.line);
  return fmt::format("{}:{}:{}: ", f.file, f.line, f.column);
}

}  // namespace

nlohmann::json report_json(const MergeReport& report, bool check, bool strict) {
  using nlohmann::json;
  json j;
  j["command"] = check ? "check" : "merge";
  j["ok"] = check ? report.passed(strict) : true;
  j["strict"] = strict;
  j["family"] = report.family ? json(std::string(family_name(*report.family))) : json(nullptr);
  j["kind"] = std::string(kind_name(report.kind));
  j["output"] = report.output.empty() ? json(nullptr) : json(report.output);
  j["rows_in"] = report.rows_in;
  j["rows_out"] = report.rows_out;
  if (!check) j["rows_dropped"] = report.rows_dropped;
  j["inputs"] = json::array();
  for (const auto& in : report.inputs)
    j["inputs"].push_back({{"file", in.file},
                           {"family", in.family},
                           {"kind", std::string(kind_name(in.kind))},
                           {"rows", in.rows},
                           {"gfx_inferred", in.gfx_inferred}});
  j["devices"] = json::array();
  for (const auto& d : report.devices) j["devices"].push_back({{"gfx", d.gfx}, {"cu_num", d.cu_num}, {"rows", d.rows}});
  j["collisions"] = json::array();
  for (const auto& c : report.collisions) {
    json entries = json::array();
    for (const auto& e : c.entries) entries.push_back({{"file", e.file}, {"line", e.line}, {"us", e.us}});
    const auto& w = c.entries[c.winner];
    j["collisions"].push_back({{"key", c.key.text()},
                               {"gfx", c.key.gfx},
                               {"cu_num", c.key.cu_num},
                               {"entries", entries},
                               {"winner", {{"file", w.file}, {"line", w.line}, {"us", w.us}}}});
  }
  j["findings"] = json::array();
  for (const auto& f : report.findings)
    j["findings"].push_back({{"kind", std::string(finding_kind_name(f.kind))},
                             {"severity", std::string(severity_name(f.severity))},
                             {"file", f.file},
                             {"line", f.line},
                             {"column", f.column},
                             {"message", f.message}});
  j["counts"] = {{"error", report.count(Severity::Error)},
                 {"warning", report.count(Severity::Warning)},
                 {"note", report.count(Severity::Note)},
                 {"collisions", report.collisions.size()}};
  return j;
}

std::vector<std::pair<Severity, std::string>> report_lines(const MergeReport& report) {
  std::vector<std::pair<Severity, std::string>> lines;
  for (const auto& f : report.findings)
    lines.emplace_back(f.severity, fmt::format("{}{}: {}", place(f), finding_kind_name(f.kind), f.message));
  return lines;
}

nlohmann::json merged_provenance(const MergeReport& report, const std::vector<nlohmann::json>& input_provenance,
                                 const MergedProvenanceContext& context) {
  using nlohmann::json;
  json j;
  j["tool"] = "cktune";
  j["cktune_version"] = context.version;
  j["status"] = "merged";
  j["created"] = context.created;
  j["updated"] = context.created;
  j["command_line"] = context.command_line;
  j["family"] = report.family ? json(std::string(family_name(*report.family))) : json(nullptr);
  j["kind"] = std::string(kind_name(report.kind));
  j["table"] = context.table;
  j["rows"] = report.rows_out;
  j["duplicate_keys_resolved"] = report.collisions.size();
  if (report.devices.size() == 1) {
    j["gfx"] = report.devices.front().gfx;
    j["cu_num"] = report.devices.front().cu_num;
  }
  json devices = json::array(), profiles = json::array(), inputs = json::array();
  auto add_once = [](json& list, const json& v) {
    if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
  };
  for (size_t i = 0; i < report.inputs.size(); ++i) {
    const InputSummary& in = report.inputs[i];
    const json prov = i < input_provenance.size() ? input_provenance[i] : json(nullptr);
    if (prov.is_object()) {
      if (auto d = prov.find("devices"); d != prov.end() && d->is_array())
        for (const auto& dev : *d) add_once(devices, dev);
      if (auto p = prov.find("profile"); p != prov.end() && p->is_string()) add_once(profiles, *p);
      if (auto p = prov.find("profiles"); p != prov.end() && p->is_array())
        for (const auto& q : *p)
          if (q.is_string()) add_once(profiles, q);
    }
    inputs.push_back({{"table", i < context.inputs.size() ? context.inputs[i] : in.file}, {"family", in.family}, {"rows", in.rows}, {"provenance", prov}});
  }
  j["devices"] = devices;
  if (profiles.size() == 1) j["profile"] = profiles.front();
  if (!profiles.empty()) j["profiles"] = profiles;
  j["inputs"] = inputs;
  return j;
}

}  // namespace cktune
