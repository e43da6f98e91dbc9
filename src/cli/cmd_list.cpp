// cktune list: the instances this build contains (descriptions only; no device needed).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cktune/engine/backend.hpp"
#include "cktune/engine/name_filter.hpp"
#include "cktune/engine/registry.hpp"
#include "cli/app.hpp"
#include "cli/common.hpp"

namespace cktune::cli {

void register_list(CLI::App& app) {
  struct Opts {
    std::string backend = "all", family, filter;
    bool json = false, test = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("list", "List the kernel instances this build contains");
  cmd->add_option("--device,--backend", o->backend, "cpu, gpu or all")->check(CLI::IsMember({"cpu", "gpu", "all"}));
  cmd->add_option("--family", o->family, "Only this family");
  cmd->add_option("--kernels", o->filter, "Only names matching this regular expression (RE2, partial match)");
  cmd->add_flag("--include-test-instances", o->test, "Also the planted wrong instances used by tests");
  cmd->add_flag("--json", o->json, "JSON on stdout");
  cmd->callback([o] {
    nlohmann::json out = nlohmann::json::array();
    NameFilter filter(o->filter);
    for (const auto& b : compiled_backends()) {
      const std::string bn(to_string(b));
      if (o->backend != "all" && o->backend != bn) continue;
      for (Family f : kAllFamilies) {
        if (!o->family.empty() && parse_family(o->family) != f) continue;
        for (const auto& d : list_instances(b, f, o->test)) {
          if (!filter.matches(d.name)) continue;
          if (o->json) {
            nlohmann::json p = nlohmann::json::object();
            for (const auto& [k, v] : d.params) p[k] = v;
            out.push_back(nlohmann::json{{"backend", bn}, {"family", family_name(f)}, {"id", d.id}, {"name", d.name},
                           {"libtype", to_string(d.provider)}, {"split_k", d.split_k}, {"test_only", d.test_only}, {"params", p}});
          } else {
            fmt::print("{:<4} {:<16} {:>4}  {:<10} {}{}\n", bn, family_name(f), d.id, to_string(d.provider), d.name,
                       d.test_only ? "  (test only)" : "");
          }
        }
      }
    }
    if (o->json) fmt::print("{}\n", out.dump(2));
  });
}

}  // namespace cktune::cli
