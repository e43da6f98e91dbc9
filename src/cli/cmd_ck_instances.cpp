// cktune ck-instances TABLE... [--json]: which of AITER's CK instances the tables use, and which AITER's
// default build compiles for the same family and gfx that no row uses. docs/cli/ck-instances.md.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cktune/aiter/usage.hpp"
#include "cktune/core/error.hpp"
#include "cktune/formats/table.hpp"
#include "cli/app.hpp"

namespace cktune::cli {

void register_ck_instances(CLI::App& app) {
  struct Opts {
    std::vector<std::string> inputs;
    std::string family;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand(
      "ck-instances", "List the AITER CK / CK-tile instances tuned tables use, and those AITER builds but they never use");
  cmd->add_option("tables", o->inputs, "Tuned AITER tables (never modified)")->required();
  cmd->add_option("--family", o->family, "Family of inputs whose header, file name and tune provenance leave it open");
  cmd->add_flag("--json", o->json, "JSON on stdout");
  cmd->callback([o] {
    std::optional<Family> family;
    if (!o->family.empty()) {
      family = family_from_name(o->family);
      if (!family) throw Error(fmt::format("--family {}: not a known family", o->family), "see `cktune list families`");
    }
    std::vector<Table> tables;
    for (const auto& path : o->inputs) tables.push_back(read_table(path, family));
    auto groups = aiter::ck_usage(tables);
    if (o->json) std::fputs((aiter::ck_usage_json(groups).dump(2) + "\n").c_str(), stdout);
    else std::fputs(aiter::ck_usage_text(groups).c_str(), stdout);
  });
}

}  // namespace cktune::cli
