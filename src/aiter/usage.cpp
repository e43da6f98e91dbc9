#include "cktune/aiter/usage.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cktune/aiter/instances.hpp"

namespace cktune::aiter {

namespace {

using GroupKey = std::tuple<std::string, std::string, std::string, std::string>;

struct Builder {
  std::map<GroupKey, CkUsageGroup> groups;
  std::map<GroupKey, MoeCkVariant> variants;

  CkUsageGroup& group(Family f, const std::string& gfx, const std::string& libtype, const std::string& variant) {
    GroupKey key{std::string(family_name(f)), gfx, libtype, variant};
    auto [it, fresh] = groups.try_emplace(key);
    if (fresh) {
      it->second.family = std::get<0>(key);
      it->second.gfx = gfx;
      it->second.libtype = libtype;
      it->second.variant = variant;
    }
    return it->second;
  }
};

void count(std::vector<std::pair<std::string, size_t>>& list, const std::string& name) {
  auto it = std::find_if(list.begin(), list.end(), [&](const auto& p) { return p.first == name; });
  if (it == list.end()) list.emplace_back(name, 1);
  else ++it->second;
}

}  // namespace

std::vector<CkUsageGroup> ck_usage(const std::vector<Table>& tables) {
  Builder b;
  for (const Table& t : tables) {
    if (!t.layout.known() || t.layout.kind != TableKind::Tuned) continue;
    const Family f = *t.layout.family;
    const CsvTable& c = t.csv;
    if (spec(f).is_moe) {
      for_each_moe_ck_name(c, [&](size_t r, std::string_view, size_t, const std::string& name) {
        const std::string& gfx = t.keys[r].gfx;
        auto v = moe_variant_of(name);
        // A name of another quant type (or an unknown one) has no list: its own group, names only.
        std::string label = v ? variant_label(*v) : std::string("other");
        CkUsageGroup& g = b.group(f, gfx, "ck", label);
        if (v) b.variants[{g.family, gfx, "ck", label}] = *v;
        ++g.rows;
        count(g.used, name);
      });
      continue;
    }
    auto lib = c.column("libtype"), name = c.column("kernelName");
    if (!lib || !name) continue;
    for (size_t r = 0; r < c.rows.size(); ++r) {
      const std::string& libtype = c.rows[r][*lib];
      if (libtype != "ck" && libtype != "cktile") continue;
      CkUsageGroup& g = b.group(f, t.keys[r].gfx, libtype, "");
      ++g.rows;
      count(g.used, c.rows[r][*name]);
    }
  }
  std::vector<CkUsageGroup> out;
  for (auto& [key, g] : b.groups) {
    Family f = *family_from_name(g.family);
    auto vit = b.variants.find(key);
    if (spec(f).is_moe && vit == b.variants.end()) {
      out.push_back(std::move(g));  // no list for this group
      continue;
    }
    std::vector<std::string> built = build_names(f, g.gfx, g.libtype, vit != b.variants.end() ? vit->second : MoeCkVariant{});
    g.has_list = !built.empty();
    g.built = built.size();
    if (g.has_list) {
      std::vector<std::pair<std::string, size_t>> known;
      for (auto& u : g.used) {
        if (std::find(built.begin(), built.end(), u.first) != built.end()) known.push_back(u);
        else g.unknown.push_back(u);
      }
      g.used = std::move(known);
      for (const auto& n : built)
        if (std::none_of(g.used.begin(), g.used.end(), [&](const auto& u) { return u.first == n; }))
          g.unused.push_back(n);
    }
    out.push_back(std::move(g));
  }
  return out;
}

nlohmann::json ck_usage_json(const std::vector<CkUsageGroup>& groups) {
  using nlohmann::json;
  json j = json::array();
  for (const auto& g : groups) {
    json used = json::array(), unknown = json::array();
    for (const auto& [n, rows] : g.used) used.push_back({{"name", n}, {"rows", rows}});
    for (const auto& [n, rows] : g.unknown) unknown.push_back({{"name", n}, {"rows", rows}});
    j.push_back({{"family", g.family},
                 {"gfx", g.gfx},
                 {"libtype", g.libtype},
                 {"variant", g.variant.empty() ? json(nullptr) : json(g.variant)},
                 {"has_list", g.has_list},
                 {"rows", g.rows},
                 {"built", g.has_list ? json(g.built) : json(nullptr)},
                 {"used_count", g.used.size()},
                 {"unused_count", g.unused.size()},
                 {"used", used},
                 {"unused", g.unused},
                 {"unknown", unknown}});
  }
  return j;
}

std::string ck_usage_text(const std::vector<CkUsageGroup>& groups) {
  std::string out;
  if (groups.empty()) return "no ck or cktile rows\n";
  for (const auto& g : groups) {
    std::string head = fmt::format("{} {} {}{}", g.family, g.gfx, g.libtype, g.variant.empty() ? "" : " (" + g.variant + ")");
    if (g.has_list)
      out += fmt::format("{}: {} row(s) use {} of the {} instance(s) AITER builds; {} built but never used{}\n", head,
                         g.rows, g.used.size(), g.built, g.unused.size(),
                         g.unknown.empty() ? "" : fmt::format("; {} name(s) AITER does not have", g.unknown.size()));
    else
      out += fmt::format("{}: {} row(s) use {} instance(s); cktune holds no AITER list for this group\n", head, g.rows,
                         g.used.size());
    for (const auto& [n, rows] : g.used) out += fmt::format("  used    {:>6}  {}\n", rows, n);
    for (const auto& [n, rows] : g.unknown) out += fmt::format("  UNKNOWN {:>6}  {}\n", rows, n);
    for (const auto& n : g.unused) out += fmt::format("  unused  {:>6}  {}\n", "-", n);
  }
  return out;
}

}  // namespace cktune::aiter
