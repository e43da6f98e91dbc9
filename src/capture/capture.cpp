#include "cktune/capture/capture.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <span>
#include <sstream>

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/core/io.hpp"
#include "cktune/formats/lookup.hpp"

namespace cktune::capture {

namespace fs = std::filesystem;

namespace {

using FamilyRows = std::array<UntunedRows, std::size(kAllFamilies)>;

void check_plain_gemm_family(Family f, std::string_view option) {
  if (spec(f).is_moe || spec(f).is_batched)
    throw Error(fmt::format("{} {}: must be a non-batched GEMM family (its rows carry no B)", option, family_name(f)));
}

// Up to `n` bytes from the start of a file ("" when unreadable or empty).
std::string first_bytes(const std::string& path, size_t n) {
  std::ifstream in(path, std::ios::binary);
  std::string buf(n, '\0');
  in.read(buf.data(), static_cast<std::streamsize>(n));
  buf.resize(static_cast<size_t>(std::max<std::streamsize>(0, in.gcount())));
  return buf;
}

std::vector<std::string> header_cells(std::string line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.size() >= 3 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);  // UTF-8 BOM
  std::vector<std::string> out;
  std::stringstream ss(line);
  for (std::string cell; std::getline(ss, cell, ',');) {
    while (!cell.empty() && (cell.front() == ' ' || cell.front() == '"')) cell.erase(cell.begin());
    while (!cell.empty() && (cell.back() == ' ' || cell.back() == '"')) cell.pop_back();
    out.push_back(cell);
  }
  return out;
}

bool has_all(const std::vector<std::string>& header, std::span<const std::string_view> cols) {
  return std::all_of(cols.begin(), cols.end(),
                     [&](std::string_view c) { return std::find(header.begin(), header.end(), c) != header.end(); });
}

// Inputs that are not logs at all: a binary file, or a table cktune or AITER wrote. Scanning them would
// count nothing and leave the user guessing, so say what the file is and what to do with it instead.
// gzip data is left to the scanner (it decompresses); stdin is not peeked at.
void reject_non_log(const std::string& path) {
  if (path == "-") return;
  std::string head = first_bytes(path, 8192);
  if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f && static_cast<unsigned char>(head[1]) == 0x8b)
    return;
  if (head.find('\0') != std::string::npos)
    throw Error(fmt::format("{}: binary file, not a text log", path),
                "give the server's console log (text, or gzip-compressed text)");
  std::vector<std::string> header = header_cells(head.substr(0, head.find('\n')));
  if (header.size() < 2) return;
  if (std::find(header.begin(), header.end(), "family") != header.end() &&
      std::find(header.begin(), header.end(), "us") != header.end())
    throw Error(fmt::format("{}: this is a cktune results file (what bench/tune measured), not a log", path),
                fmt::format("compare it with `cktune compare BEFORE AFTER` or `cktune report --after {}`", path));
  // Several families share a header (M,N,K): the file name decides when it names one of them.
  std::vector<Family> order;
  if (auto named = family_from_file_name(path)) order.push_back(*named);
  order.insert(order.end(), std::begin(kAllFamilies), std::end(kAllFamilies));
  for (Family f : order) {
    const auto& s = spec(f);
    // A tuned table carries the key plus kernel columns; test it first, it holds every untuned column too.
    if (header.size() > s.untuned.size() + 2 && has_all(header, s.tuned))
      throw Error(fmt::format("{}: this is a tuned {} table, not a log", path, family_name(f)),
                  fmt::format("measure it with `cktune bench` (see docs/cli/bench.md) or check it with "
                              "`cktune merge --check {}`",
                              path));
  }
  for (Family f : order) {
    const auto& s = spec(f);
    if (header.size() == s.untuned.size() && has_all(header, s.untuned))
      throw Error(fmt::format("{}: this is an untuned {} table already, not a log", path, family_name(f)),
                  fmt::format("use it with `cktune tune -i {}`", path));
  }
}

// What the scanner recognises, for the error when an input holds none of it (docs/cli/capture.md).
constexpr std::string_view kLineForms =
    "  shape is M:<m>, N:<n>, K:<k>, not found tuned config in <file>, will use default config!\n"
    "  shape is B:<b>, M:<m>, N:<n>, K:<k>, not found tuned config in CKGEMM, ...\n"
    "  [fused_moe] using <mode> default for (<gfx>, <cu_num>, <token>, <model_dim>, ...)\n"
    "  [GEMM_shape_dump] ... | csv_row: <M>,<N>,<K>,<dtype>\n"
    "  shape is M:<m>, ... found padded_M ... is tuned (a tuned hit: recognised, not counted)";

bool recognised_nothing(const Observations& obs) {
  const auto& ig = obs.ignored;
  return obs.records() == 0 && ig.found == 0 && ig.tuned_moe == 0 && ig.unknown_file == 0 && ig.malformed == 0 &&
         ig.truncated == 0;
}

// Step 1: every log through one scanner, so counts add up across files.
Observations scan_inputs(const CaptureOptions& o, std::vector<InputReport>& inputs) {
  if (std::count(o.inputs.begin(), o.inputs.end(), "-") > 1) throw Error("'-' (stdin) is given more than once");
  for (const auto& path : o.inputs) reject_non_log(path);
  LogScanner scanner(ScanOptions{o.dump_family});
  for (const auto& path : o.inputs) {
    const std::uint64_t before = scanner.observations().records();
    const std::uint64_t bytes = scan_input(path, scanner);
    inputs.push_back({path == "-" ? "<stdin>" : path, bytes, scanner.observations().records() - before});
  }
  return scanner.take();
}

// Step 2: observed keys with their observed sizes, plus the sweep when one was asked for.
void add_observed(const Observations& obs, const CaptureOptions& o, FamilyRows& rows) {
  const auto m_sizes = m_sweep_sizes(o.m_sweep);
  const auto tokens = o.token_sweep ? token_sweep_sizes() : std::vector<std::int64_t>{};
  for (Family f : kAllFamilies) {
    for (const auto& [key, ko] : obs.of(f).keys) {
      auto& sizes = rows[static_cast<size_t>(f)].keys[key];
      for (const auto& [size, count] : ko.sizes.sorted()) sizes.insert(size);  // observed sizes are always kept
      const auto& sweep = spec(f).is_moe ? tokens : m_sizes;
      sizes.insert(sweep.begin(), sweep.end());
    }
  }
}

// Step 3: preset rows, swept (a preset has no observed sizes).
void add_model(const ModelPlan& plan, const CaptureOptions& o, FamilyRows& rows) {
  const MSweep sweep = o.preset_m_sweep.value_or(o.m_sweep == MSweep::Observed ? MSweep::Pow2 : o.m_sweep);
  const auto m_sizes = m_sweep_sizes(sweep);
  const auto tokens = token_sweep_sizes();
  for (const Family gf : o.preset_gemm_families) {
    const FamilySpec& s = spec(gf);
    for (const auto& g : plan.gemms) {
      std::string key;
      for (std::string_view col : s.untuned) {
        if (col == s.size_column) continue;
        if (!key.empty()) key += ',';
        if (col == "N") key += std::to_string(g.n);
        else if (col == "K") key += std::to_string(g.k);
        else if (col == "q_dtype_w") key += plan.fp8_dtype;
      }
      rows[static_cast<size_t>(gf)].keys[key].insert(m_sizes.begin(), m_sizes.end());
    }
  }
  for (const auto& m : plan.moes)
    rows[static_cast<size_t>(Family::Moe2Stages)].keys[m.key()].insert(tokens.begin(), tokens.end());
}

// aiter-formats.md §2: the runtime rounds a MoE token count up to a power of two (then the 32768 and
// 131072 tiers), so any other token in a table is never looked up. GEMM M is tried exactly first, so
// every positive M can be hit.
std::vector<std::string> unreachable_warnings(Family f, const UntunedRows& rows) {
  std::vector<std::string> out;
  if (!spec(f).is_moe) return out;
  for (const auto& [key, sizes] : rows.keys) {
    std::vector<std::int64_t> bad, looked_up;
    for (std::int64_t t : sizes) {
      if (moe_token_reachable(t)) continue;
      bad.push_back(t);
      looked_up.push_back(moe_token_key(t));
    }
    if (!bad.empty())
      out.push_back(fmt::format("{} key {}: token {} is never looked up (AITER rounds tokens up to a power of "
                                "two and looks up {}); --token-sweep adds the tokens it does look up",
                                family_name(f), key, fmt::join(bad, ","), fmt::join(looked_up, ",")));
  }
  return out;
}

// Step 4: merge with the existing file (--append), order, write atomically.
FamilyReport write_family(Family f, UntunedRows rows, const CaptureOptions& o, const Observations& obs) {
  FamilyReport fr;
  fr.family = f;
  fr.file = (fs::path(o.out_dir) / spec(f).untuned_file).string();
  if (o.append && file_exists(fr.file)) {
    UntunedRows existing = rows_from_table(f, read_csv(fr.file));
    fr.rows_kept = existing.row_count();
    for (auto& [key, sizes] : rows.keys) existing.keys[key].insert(sizes.begin(), sizes.end());
    rows = std::move(existing);
  }
  fr.warnings = unreachable_warnings(f, rows);
  CsvTable table = build_untuned_table(f, rows);
  fr.unique_keys = rows.keys.size();
  fr.rows = table.rows.size();
  fr.lines = obs.of(f).lines();
  if (!o.dry_run) write_csv_atomic(table, fr.file);
  return fr;
}

std::vector<std::string> sorted_keys(const FamilyObservations& fo) {
  std::vector<std::string> keys;
  for (const auto& [key, ko] : fo.keys) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  return keys;
}

}  // namespace

CaptureReport run_capture(const CaptureOptions& o) {
  if (o.inputs.empty() && o.model.empty() && o.model_config.empty())
    throw Error("nothing to capture", "give log files (- for stdin), or --model NAME / --model-config FILE");
  if (!o.model.empty() && !o.model_config.empty()) throw Error("--model and --model-config exclude each other");
  check_plain_gemm_family(o.dump_family, "--dump-family");
  if (o.preset_gemm_families.empty()) throw Error("--gemm-family: no family given", "e.g. --gemm-family a8w8,a8w8_bpreshuffle");
  for (Family f : o.preset_gemm_families) check_plain_gemm_family(f, "--gemm-family");

  CaptureReport report;
  report.dry_run = o.dry_run;
  report.observed = scan_inputs(o, report.inputs);
  report.warnings = report.observed.warnings;
  if (!o.inputs.empty() && recognised_nothing(report.observed)) {
    std::vector<std::string> names;
    for (const auto& in : report.inputs) names.push_back(fmt::format("{} ({} bytes)", in.path, in.bytes));
    std::string what = fmt::format("no AITER shape line in {}; looked for lines containing:\n{}",
                                   fmt::join(names, ", "), kLineForms);
    if (o.model.empty() && o.model_config.empty())
      throw Error(what, "capture the log of a server that runs AITER GEMMs (AITER logs these at its default "
                        "level), or describe the model instead: cktune capture --model NAME --tp N");
    report.warnings.push_back(what);
  }

  FamilyRows rows;
  add_observed(report.observed, o, rows);
  if (!o.model.empty() || !o.model_config.empty()) {
    report.model = o.model.empty() ? plan_config_file(o.model_config, o.plan) : plan_preset(o.model, o.plan);
    for (const auto& w : report.model->warnings) report.warnings.push_back(fmt::format("{}: {}", report.model->model, w));
    add_model(*report.model, o, rows);
  }

  // Every file to be written is checked before the first is: a refused one (a FIFO or device at that
  // name) must not leave the folder with some families updated and others not.
  if (!o.dry_run)
    for (Family f : kAllFamilies)
      if (!rows[static_cast<size_t>(f)].keys.empty())
        check_output_path((fs::path(o.out_dir) / spec(f).untuned_file).string());
  for (Family f : kAllFamilies) {
    auto& r = rows[static_cast<size_t>(f)];
    if (r.keys.empty()) continue;
    report.families.push_back(write_family(f, std::move(r), o, report.observed));
    for (const auto& w : report.families.back().warnings) report.warnings.push_back(w);
  }
  return report;
}

nlohmann::json report_json(const CaptureReport& report) {
  nlohmann::json j;
  j["families"] = nlohmann::json::object();
  for (const auto& fr : report.families) {
    const FamilyObservations& fo = report.observed.of(fr.family);
    nlohmann::json observed = nlohmann::json::object();
    nlohmann::json devices = nlohmann::json::object();
    for (const auto& [key, ko] : fo.keys) {
      nlohmann::json sizes = nlohmann::json::object();
      for (const auto& [size, count] : ko.sizes.sorted()) sizes[std::to_string(size)] = count;
      observed[key] = std::move(sizes);
      if (!ko.devices.empty()) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& [dev, count] : ko.devices)
          list.push_back({{"gfx", dev.first.empty() ? nlohmann::json(nullptr) : nlohmann::json(dev.first)},
                          {"cu_num", dev.second},
                          {"lines", count}});
        devices[key] = std::move(list);
      }
    }
    nlohmann::json fam = {
        {"file", fr.file},
        {"written", !report.dry_run},
        {"size_column", spec(fr.family).size_column},
        {"unique_keys", fr.unique_keys},
        {"rows", fr.rows},
        {"rows_kept", fr.rows_kept},
        {"lines", fr.lines},
        {"observed", std::move(observed)},
        {"warnings", fr.warnings},
    };
    if (spec(fr.family).is_moe) fam["devices"] = std::move(devices);
    j["families"][std::string(family_name(fr.family))] = std::move(fam);
  }
  j["inputs"] = nlohmann::json::array();
  for (const auto& in : report.inputs)
    j["inputs"].push_back({{"path", in.path}, {"bytes", in.bytes}, {"records", in.records}});
  const auto& ig = report.observed.ignored;
  j["ignored"] = {{"found", ig.found},
                  {"tuned_moe", ig.tuned_moe},
                  {"unknown_file", ig.unknown_file},
                  {"malformed", ig.malformed},
                  {"truncated", ig.truncated},
                  {"long_lines", ig.long_lines},
                  {"bad_cu_num", ig.bad_cu_num}};
  j["unknown_files"] = report.observed.unknown_files;
  if (report.model) {
    const ModelPlan& m = *report.model;
    nlohmann::json gemms = nlohmann::json::array();
    for (const auto& g : m.gemms) gemms.push_back({{"layer", g.layer}, {"N", g.n}, {"K", g.k}, {"rule", g.rule}});
    nlohmann::json moes = nlohmann::json::array();
    for (const auto& x : m.moes) moes.push_back({{"layer", x.layer}, {"key", x.key()}, {"rule", x.rule}});
    j["model"] = {{"name", m.model}, {"source", m.source}, {"tp", m.tp},   {"arch", m.arch},
                  {"gemms", gemms},  {"moes", moes},       {"warnings", m.warnings}};
  } else {
    j["model"] = nullptr;
  }
  j["warnings"] = report.warnings;
  return j;
}

std::string report_text(const CaptureReport& report) {
  std::string out;
  std::uint64_t bytes = 0;
  for (const auto& in : report.inputs) bytes += in.bytes;
  const auto& ig = report.observed.ignored;
  if (!report.inputs.empty())
    out += fmt::format(
        "read {} input(s), {} bytes: {} shape lines counted; not counted: {} tuned GEMM, {} tuned MoE, "
        "{} unknown file, {} malformed, {} truncated{}{}\n",
        report.inputs.size(), bytes, report.observed.records(), ig.found, ig.tuned_moe, ig.unknown_file,
        ig.malformed, ig.truncated, ig.long_lines ? fmt::format(", {} too long", ig.long_lines) : "",
        ig.bad_cu_num ? fmt::format(", {} bad cu_num", ig.bad_cu_num) : "");
  if (report.model) {
    const ModelPlan& m = *report.model;
    out += fmt::format("\nmodel {} at tp {} on {} ({}):\n", m.model, m.tp, m.arch, m.source);
    out += fmt::format("  {:<40} {:>7} {:>7}  {}\n", "layer", "N", "K", "rule");
    for (const auto& g : m.gemms) out += fmt::format("  {:<40} {:>7} {:>7}  {}\n", g.layer, g.n, g.k, g.rule);
    for (const auto& x : m.moes) out += fmt::format("  {:<40} {}  ({})\n", x.layer, x.key(), x.rule);
  }
  out += fmt::format("\n{:<28} {:>6} {:>7} {:>9}  {}\n", "family", "keys", "rows", "lines", report.dry_run ? "file (not written: --dry-run)" : "file");
  for (const auto& fr : report.families)
    out += fmt::format("{:<28} {:>6} {:>7} {:>9}  {}\n", family_name(fr.family), fr.unique_keys, fr.rows, fr.lines,
                       fr.file);
  bool header = false;
  for (const auto& fr : report.families) {
    const FamilyObservations& fo = report.observed.of(fr.family);
    for (const auto& key : sorted_keys(fo)) {
      if (!header) {
        out += "\nobserved (size:lines)\n";
        header = true;
      }
      const KeyObservations& ko = fo.keys.at(key);
      std::vector<std::string> cells;
      for (const auto& [size, count] : ko.sizes.sorted()) cells.push_back(fmt::format("{}:{}", size, count));
      out += fmt::format("  {} {}  {}={}\n", family_name(fr.family), key, spec(fr.family).size_column,
                         fmt::join(cells, " "));
      for (const auto& [dev, count] : ko.devices)
        out += fmt::format("      device gfx={} cu_num={}: {} lines\n", dev.first.empty() ? "?" : dev.first,
                           dev.second, count);
    }
  }
  return out;
}

}  // namespace cktune::capture
