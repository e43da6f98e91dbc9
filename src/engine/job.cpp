#include "cktune/engine/job.hpp"

#include <cmath>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "cktune/core/error.hpp"

namespace cktune {

namespace {
constexpr EnumName<FaultKind> kFaultNames[] = {
    {FaultKind::None, "none"}, {FaultKind::Hang, "hang"},       {FaultKind::Crash, "crash"},
    {FaultKind::Wrong, "wrong"}, {FaultKind::Partial, "partial"},
};

// JSON has no infinity: timed-out candidates carry +inf medians, sent as null.
nlohmann::json num(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }
double num_from(const nlohmann::json& j) {
  return j.is_null() ? std::numeric_limits<double>::infinity() : j.get<double>();
}
// Integer fields are written as JSON integers. nlohmann would convert a float there (1e300) to the
// integer type even out of range, which is undefined behaviour (found by fuzz_job): refuse it instead.
template <typename Int>
Int int_from(const nlohmann::json& j) {
  const bool ok = j.is_number_unsigned() ? std::in_range<Int>(j.get<std::uint64_t>())
                                         : j.is_number_integer() && std::in_range<Int>(j.get<std::int64_t>());
  if (!ok) throw Error(fmt::format("worker message: expected an integer in range, got {:.40}", j.dump()));
  return j.get<Int>();
}
}  // namespace

std::string_view to_string(FaultKind k) { return enum_text(kFaultNames, k); }

std::optional<FaultKind> fault_from_string(std::string_view s) { return enum_from_text(kFaultNames, s); }

std::vector<InjectedFault> parse_faults(const std::string& spec) {
  std::vector<InjectedFault> out;
  size_t pos = 0;
  while (pos < spec.size()) {
    size_t comma = spec.find(',', pos);
    std::string item = spec.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? spec.size() : comma + 1;
    if (item.empty()) continue;
    size_t at = item.find('@');
    auto kind = fault_from_string(item.substr(0, at));
    if (at == std::string::npos || !kind || *kind == FaultKind::None || at + 1 >= item.size())
      throw Error(fmt::format("bad --inject-fault item '{}'", item),
                  "use KIND@INSTANCE with KIND one of hang, crash, wrong, partial (see `cktune list`)");
    out.push_back({*kind, item.substr(at + 1)});
  }
  return out;
}

nlohmann::json to_json(const Job& job) {
  nlohmann::json faults = nlohmann::json::array();
  for (const auto& f : job.faults) faults.push_back({{"kind", to_string(f.kind)}, {"instance", f.instance}});
  const Protocol& p = job.protocol;
  return {
      {"id", job.id},
      {"family", family_name(job.key.family)},
      {"cells", job.key.cells},
      {"candidates", job.candidates},
      {"seed", job.seed},
      {"protocol",
       {{"warmup", p.warmup}, {"iters", p.iters}, {"min_time_ms", p.min_time_ms}, {"max_iters", p.max_iters},
        {"rotate", p.rotate}, {"seed", p.seed}, {"routing", p.routing}, {"settle_ms", p.settle_ms}}},
      {"tolerance",
       {{"rtol", job.tolerance.rtol}, {"atol", job.tolerance.atol}, {"max_err_ratio", job.tolerance.max_err_ratio},
        {"max_row_err_ratio", job.tolerance.max_row_err_ratio}}},
      {"screen_factor", job.screen_factor},
      {"screen_iters", job.screen_iters},
      {"retime_tolerance", job.retime_tolerance},
      {"retime_rounds", job.retime_rounds},
      {"confirm_margin", job.confirm_margin},
      {"skip_redundant", job.skip_redundant},
      {"faults", faults},
  };
}

Job job_from_json(const nlohmann::json& j) {
  Job job;
  job.id = int_from<int>(j.at("id"));
  auto fam = family_from_name(j.at("family").get<std::string>());
  if (!fam) throw Error("job names an unknown family");
  job.key.family = *fam;
  job.key.cells = j.at("cells").get<std::vector<std::string>>();
  job.candidates = j.at("candidates").get<std::vector<std::string>>();
  job.seed = int_from<std::uint64_t>(j.at("seed"));
  const auto& p = j.at("protocol");
  job.protocol.warmup = int_from<int>(p.at("warmup"));
  job.protocol.iters = int_from<int>(p.at("iters"));
  job.protocol.min_time_ms = p.at("min_time_ms").get<double>();
  job.protocol.max_iters = int_from<int>(p.at("max_iters"));
  job.protocol.rotate = int_from<int>(p.at("rotate"));
  job.protocol.seed = int_from<std::uint64_t>(p.at("seed"));
  job.protocol.routing = p.value("routing", std::string("uniform"));
  job.protocol.settle_ms = p.value("settle_ms", 0.0);
  const auto& t = j.at("tolerance");
  job.tolerance.rtol = t.at("rtol").get<double>();
  job.tolerance.atol = t.at("atol").get<double>();
  job.tolerance.max_err_ratio = t.at("max_err_ratio").get<double>();
  job.tolerance.max_row_err_ratio = t.at("max_row_err_ratio").get<double>();
  job.screen_factor = j.value("screen_factor", 0.0);
  job.screen_iters = j.value("screen_iters", 5);
  job.retime_tolerance = j.at("retime_tolerance").get<double>();
  job.retime_rounds = int_from<int>(j.at("retime_rounds"));
  job.confirm_margin = j.value("confirm_margin", 0.0);
  job.skip_redundant = j.value("skip_redundant", false);
  for (const auto& f : j.at("faults")) {
    auto kind = fault_from_string(f.at("kind").get<std::string>());
    job.faults.push_back({kind.value_or(FaultKind::None), f.at("instance").get<std::string>()});
  }
  return job;
}

nlohmann::json to_json(const CandidateResult& r) {
  return {
      {"name", r.name},
      {"alias", r.alias},
      {"id", r.id},
      {"libtype", to_string(r.provider)},
      {"unknown_instance", r.unknown_instance},
      {"screened_out", r.screened_out},
      {"confirmed", r.confirmed},
      {"confirm_median_us", num(r.confirm_median_us)},
      {"split_k", r.split_k},
      {"verdict", to_string(r.verdict)},
      {"reason", r.reason},
      {"median_us", num(r.time.median_us)},
      {"min_us", num(r.time.min_us)},
      {"p10_us", num(r.time.p10_us)},
      {"p90_us", num(r.time.p90_us)},
      {"mean_us", num(r.time.mean_us)},
      {"iters", r.time.iters},
      {"sets", r.time.sets},
      {"err_ratio", num(r.check.err_ratio)},
      {"max_abs_err", num(r.check.max_abs_err)},
      {"worst_row", r.check.worst_row},
      {"worst_row_err_ratio", num(r.check.worst_row_err_ratio)},
      {"unwritten", r.check.unwritten},
      {"stage_err_ratios", [&] {
         nlohmann::json a = nlohmann::json::array();
         for (double v : r.check.stage_err_ratios) a.push_back(num(v));
         return a;
       }()},
      {"retimed", r.retimed},
      {"first_median_us", num(r.first_median_us)},
      {"part_us", [&] {
         nlohmann::json a = nlohmann::json::array();
         for (double v : r.part_us) a.push_back(num(v));
         return a;
       }()},
      {"part_names", r.part_names},
      {"min_bytes", num(r.min_bytes)},
  };
}

CandidateResult candidate_result_from_json(const nlohmann::json& j) {
  CandidateResult r;
  r.name = j.at("name").get<std::string>();
  r.alias = j.value("alias", "");
  r.id = int_from<int>(j.at("id"));
  {
    const std::string lt = j.at("libtype").get<std::string>();
    auto p = provider_from_string(lt);
    if (!p) throw Error(fmt::format("worker result names an unknown libtype '{}'", lt));
    r.provider = *p;
  }
  r.unknown_instance = j.value("unknown_instance", false);
  r.screened_out = j.value("screened_out", false);
  r.confirmed = j.value("confirmed", false);
  r.confirm_median_us = j.contains("confirm_median_us") ? num_from(j.at("confirm_median_us")) : 0.0;
  r.split_k = int_from<int>(j.at("split_k"));
  r.verdict = verdict_from_string(j.at("verdict").get<std::string>()).value_or(Verdict::Failed);
  r.reason = j.at("reason").get<std::string>();
  r.time.median_us = num_from(j.at("median_us"));
  r.time.min_us = num_from(j.at("min_us"));
  r.time.p10_us = num_from(j.at("p10_us"));
  r.time.p90_us = num_from(j.at("p90_us"));
  r.time.mean_us = num_from(j.at("mean_us"));
  r.time.iters = int_from<int>(j.at("iters"));
  r.time.sets = int_from<int>(j.at("sets"));
  r.check.err_ratio = num_from(j.at("err_ratio"));
  r.check.max_abs_err = num_from(j.at("max_abs_err"));
  r.check.worst_row = int_from<std::int64_t>(j.at("worst_row"));
  r.check.worst_row_err_ratio = num_from(j.at("worst_row_err_ratio"));
  r.check.unwritten = int_from<std::int64_t>(j.at("unwritten"));
  r.check.verdict = r.verdict;
  if (j.contains("stage_err_ratios"))
    for (const auto& v : j.at("stage_err_ratios")) r.check.stage_err_ratios.push_back(num_from(v));
  r.retimed = j.at("retimed").get<bool>();
  r.first_median_us = num_from(j.at("first_median_us"));
  if (j.contains("part_us")) {
    for (const auto& v : j.at("part_us")) r.part_us.push_back(num_from(v));
    r.part_names = j.value("part_names", std::vector<std::string>{});
    if (r.part_names.size() != r.part_us.size()) throw Error("worker result: part_us and part_names differ in length");
  }
  r.min_bytes = j.contains("min_bytes") ? num_from(j.at("min_bytes")) : 0.0;
  return r;
}

std::optional<EventKind> event_kind(const nlohmann::json& event) {
  if (!event.is_object()) return std::nullopt;
  auto it = event.find("ev");
  if (it == event.end() || !it->is_string()) return std::nullopt;
  return enum_from_text(kEventKindNames, it->get<std::string>());
}

nlohmann::json make_event(EventKind kind) { return {{"ev", to_string(kind)}}; }

nlohmann::json to_json(const DeviceInfo& d) {
  return {{"backend", d.backend}, {"name", d.name},       {"gfx", d.gfx},         {"cu_num", d.cu_num},
          {"index", d.index},     {"driver", d.driver},   {"runtime", d.runtime}, {"l2_bytes", d.l2_bytes},
          {"memory_total_bytes", d.memory_total_bytes}, {"pci_bus_id", d.pci_bus_id}, {"uuid", d.uuid}};
}

DeviceInfo device_from_json(const nlohmann::json& j) {
  DeviceInfo d;
  d.backend = j.value("backend", "");
  d.name = j.value("name", "");
  d.gfx = j.value("gfx", "");
  d.cu_num = j.value("cu_num", 0);
  d.index = j.value("index", 0);
  d.driver = j.value("driver", "");
  d.runtime = j.value("runtime", "");
  d.l2_bytes = j.value("l2_bytes", std::uint64_t{0});
  d.memory_total_bytes = j.value("memory_total_bytes", std::uint64_t{0});
  d.pci_bus_id = j.value("pci_bus_id", "");
  d.uuid = j.value("uuid", "");
  return d;
}

}  // namespace cktune
