// cktune merge IN.csv [IN2.csv ...] -o OUT.csv   |   cktune merge --check IN.csv ...
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cktune/core/error.hpp"
#include "cktune/core/io.hpp"
#include "cktune/core/lock.hpp"
#include "cktune/core/log.hpp"
#include "cktune/formats/csv.hpp"
#include "cktune/formats/table.hpp"
#include "cktune/formats/tuned_table.hpp"
#include "cktune/merge/merge.hpp"
#include "cktune/results/results.hpp"
#include "cli/app.hpp"
#include "cli/common.hpp"

namespace cktune::cli {

namespace {

struct MergeCliOptions {
  std::vector<std::string> inputs;
  std::string output;
  bool check = false;
  bool json = false;
  bool strict = false;
  bool keep_order = false;
  bool drop_invalid = false;
  double max_err_ratio = 0.05;
  double max_moe_err_pct = 10.0;
  std::string family;
};

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (std::filesystem::equivalent(a, b, ec)) return true;
  return std::filesystem::weakly_canonical(a, ec) == std::filesystem::weakly_canonical(b, ec);
}

void validate(const MergeCliOptions& o) {
  if (o.check && !o.output.empty()) throw Error("--check only reports; it takes no -o", "drop -o, or drop --check to merge");
  if (!o.check && o.output.empty()) throw Error("merge needs -o OUT.csv (or --check to only validate the inputs)");
  if (o.json && o.output == "-") throw Error("--json and -o - both want stdout", "write the table to a file");
  if (o.max_err_ratio < 0 || o.max_moe_err_pct < 0) throw Error("error limits must be >= 0");
  if (o.check && o.drop_invalid) throw Error("--drop-invalid applies to a merge; --check only reports");
  for (const auto& in : o.inputs)
    if (!o.output.empty() && o.output != "-" && same_file(in, o.output))
      throw Error(fmt::format("-o {} is also an input; merge never modifies its inputs", o.output),
                  "write to a new file and rename it yourself");
  if (!o.output.empty()) check_output_path(o.output);  // fail before reading anything
}

std::vector<Table> load(const MergeCliOptions& o) {
  std::optional<Family> family;
  if (!o.family.empty()) {
    family = family_from_name(o.family);
    if (!family) throw Error(fmt::format("--family {}: not a known family", o.family), "see `cktune list families`");
  }
  std::vector<Table> tables;
  tables.reserve(o.inputs.size());
  for (const auto& path : o.inputs) {
    tables.push_back(read_table(path, family));
    if (const TableLayout& l = tables.back().layout; l.family_from_provenance)
      log().info("{}: family {} from {} (the header fits more than one family)", path, family_name(*l.family),
                 provenance_path(path));
  }
  return tables;
}

void log_report(const MergeReport& report) {
  for (const auto& [severity, line] : report_lines(report)) {
    if (severity == Severity::Error) log().error("{}", line);
    else if (severity == Severity::Warning) log().warn("{}", line);
    else log().info("{}", line);
  }
}

// The inputs' provenance sidecars as they are (null where an input has none; an unreadable one is a warning).
std::vector<nlohmann::json> input_provenance(const std::vector<Table>& tables) {
  std::vector<nlohmann::json> out;
  for (const auto& t : tables) {
    try {
      out.push_back(read_table_provenance(t.source()));
    } catch (const std::exception& e) {
      log().warn("{} (left out of the merged table's provenance)", e.what());
      out.emplace_back(nullptr);
    }
  }
  return out;
}

// OUT.provenance.json: replaces whatever sidecar an earlier table at OUT left, so that it never describes another
// table; records the family, so that the merged table reads back without --family whatever its name.
void write_sidecar(const MergeCliOptions& o, const std::vector<Table>& tables, const MergeReport& report) {
  MergedProvenanceContext ctx;
  ctx.table = std::filesystem::absolute(o.output).string();
  for (const auto& t : tables)
    ctx.inputs.push_back(t.source() == "-" ? "-" : std::filesystem::absolute(t.source()).string());  // "-": stdin
  ctx.command_line = command_line();
  ctx.created = format_timestamp(std::chrono::system_clock::now());
  ctx.version = CKTUNE_VERSION;
  const std::string path = provenance_path(o.output);
  try {
    write_file_atomic(path, merged_provenance(report, input_provenance(tables), ctx).dump(2) + "\n");
  } catch (const std::exception& e) {
    std::error_code ec;
    std::filesystem::remove(path, ec);  // a stale sidecar would describe another table
    throw Error(fmt::format("{} was written, but not its provenance {}: {}", o.output, path, e.what()),
                "the table is complete; without the sidecar give --family when a later merge asks for it");
  }
}

void run_merge(const MergeCliOptions& o) {
  validate(o);
  MergeOptions options;
  options.max_err_ratio = o.max_err_ratio;
  options.max_moe_err = o.max_moe_err_pct / 100.0;
  options.strict = o.strict;
  options.keep_order = o.keep_order;
  options.drop_invalid = o.drop_invalid;
  if (!o.family.empty()) options.family = family_from_name(o.family);
  // One writer per output, for the whole run: a second merge (or tune) onto the same -o fails at once.
  std::optional<OutputLock> lock;
  if (!o.check && o.output != "-") lock.emplace(o.output);
  std::vector<Table> tables = load(o);

  if (o.check) {
    MergeReport report = check_tables(tables, options);
    log_report(report);
    bool ok = report.passed(o.strict);
    if (o.json) {
      std::fputs((report_json(report, true, o.strict).dump(2) + "\n").c_str(), stdout);
    } else {
      std::fputs(fmt::format("check: {} input(s), {} row(s), {} key(s), {} duplicate key(s), {} error(s), {} "
                             "warning(s): {}\n",
                             report.inputs.size(), report.rows_in, report.rows_out, report.collisions.size(),
                             report.count(Severity::Error), report.count(Severity::Warning), ok ? "ok" : "FAILED")
                     .c_str(),
                 stdout);
    }
    if (!ok) set_exit_code(static_cast<int>(ExitCode::CheckFailed));
    return;
  }

  MergeResult result = merge_tables(tables, options);
  result.report.output = o.output;
  result.table.source = o.output;
  log_report(result.report);
  if (o.output == "-") {
    std::fputs(render_csv(result.table).c_str(), stdout);
  } else {
    write_csv_atomic(result.table, o.output);
    write_sidecar(o, tables, result.report);
  }
  log().info("merged {} row(s) from {} file(s) into {} row(s) ({} duplicate key(s) resolved) -> {}",
             result.report.rows_in, tables.size(), result.report.rows_out, result.report.collisions.size(), o.output);
  if (o.json) std::fputs((report_json(result.report, false, o.strict).dump(2) + "\n").c_str(), stdout);
}

}  // namespace

void register_merge(CLI::App& app) {
  auto opts = std::make_shared<MergeCliOptions>();
  auto* cmd = app.add_subcommand(
      "merge", "Merge AITER tuned (or untuned) tables of one family on AITER's key, or --check them");
  cmd->add_option("inputs", opts->inputs, "Input CSV tables (never modified)")->required();
  cmd->add_option("-o,--output", opts->output, "Merged table, written atomically ('-' = stdout)");
  cmd->add_flag("--check", opts->check, "Only validate: duplicates, invalid rows, unreachable rows (exit 3 on problems)");
  cmd->add_flag("--json", opts->json, "Print the report as JSON on stdout");
  cmd->add_flag("--strict", opts->strict, "With --check, warnings (unreachable rows, mixed devices...) fail too");
  cmd->add_flag("--keep-order", opts->keep_order, "Keep input row order instead of AITER's GEMM sort");
  cmd->add_flag("--drop-invalid", opts->drop_invalid,
                "Leave out rows whose us is not a finite time > 0 (without it such rows make the merge fail)");
  cmd->add_option("--max-err-ratio", opts->max_err_ratio, "GEMM errRatio limit for --check")->capture_default_str();
  cmd->add_option("--max-moe-err", opts->max_moe_err_pct, "MoE err1/err2 limit in percent for --check")
      ->capture_default_str();
  cmd->add_option("--family", opts->family,
                  "Family of inputs whose header, file name and tune provenance leave it open (e.g. a8w8_blockscale)");
  cmd->callback([opts] { run_merge(*opts); });
}

}  // namespace cktune::cli
