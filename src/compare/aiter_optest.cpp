#include "cktune/core/names.hpp"
#include "cktune/compare/aiter_optest.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/formats/cells.hpp"

namespace cktune {

namespace {

constexpr EnumName<AiterTableKind> kKinds[] = {
    {AiterTableKind::GemmA8W8Blockscale, "test_gemm_a8w8_blockscale"},
    {AiterTableKind::Moe2Stage, "test_moe_2stage"},
};

// test_moe_2stage.py's argument names -> the fused-MoE key columns (spec(Moe2Stages).untuned).
constexpr std::pair<std::string_view, std::string_view> kMoeColumns[] = {
    {"token", "token"},        {"model_dim", "model_dim"}, {"inter_dim", "inter_dim"},
    {"E", "expert"},           {"topk", "topk"},           {"actType", "act_type"},
    {"dtype", "dtype"},        {"AQDType", "q_dtype_a"},   {"WQDType", "q_dtype_w"},
    {"qType", "q_type"},       {"use_g1u1", "use_g1u1"},   {"doweight_stage1", "doweight_stage1"},
};

bool has(const std::vector<std::string>& header, std::string_view name) {
  return std::find(header.begin(), header.end(), name) != header.end();
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Cells of one "| a | b |" line with the 1-based column where each cell's text starts.
struct PipeCells {
  std::vector<std::string> values;
  std::vector<std::uint32_t> columns;
};

PipeCells split_pipe(std::string_view line) {
  PipeCells out;
  size_t start = line.find('|');
  if (start == std::string_view::npos) return out;
  size_t pos = start + 1;
  while (pos <= line.size()) {
    size_t bar = line.find('|', pos);
    size_t end = bar == std::string_view::npos ? line.size() : bar;
    std::string_view raw = line.substr(pos, end - pos);
    std::string_view cell = trim(raw);
    // Text after the last '|' is only kept when it is not blank (a table without a closing bar).
    if (bar != std::string_view::npos || !cell.empty()) {
      size_t lead = cell.empty() ? 0 : static_cast<size_t>(cell.data() - raw.data());
      out.values.emplace_back(cell);
      out.columns.push_back(static_cast<std::uint32_t>(pos + lead + 1));
    }
    if (bar == std::string_view::npos) break;
    pos = bar + 1;
  }
  return out;
}

bool starts_with_bar(std::string_view line) {
  std::string_view t = trim(line);
  return !t.empty() && t.front() == '|';
}

bool is_separator(std::string_view line) {
  std::string_view t = trim(line);
  if (t.empty() || t.front() != '|') return false;
  bool dash = false;
  for (char c : t) {
    if (c == '-') dash = true;
    else if (c != '|' && c != ':' && c != ' ') return false;
  }
  return dash;
}

bool is_missing(std::string_view cell) { return cell.empty() || cell == "nan" || cell == "NaN" || cell == "None"; }

// Reads one table row's cells by name; errors name file:line:col.
class Row {
 public:
  Row(const CsvTable& t, size_t r) : t_(t), r_(r) {}
  const std::string* cell(std::string_view name) const {
    auto i = t_.column(name);
    return i ? &t_.rows[r_][*i] : nullptr;
  }
  [[noreturn]] void fail(std::string_view name, const std::string& message) const {
    auto i = t_.column(name);
    throw InputError(t_.source, t_.line_of(r_), i ? t_.column_of(r_, *i) : 0, message,
                     "the table must be as the AITER op test printed it");
  }
  // A required integer cell ("7168", pandas' "7168.0" accepted).
  std::string integer(std::string_view name) const {
    const std::string* c = cell(name);
    if (!c || is_missing(*c)) fail(name, fmt::format("missing '{}'", name));
    auto v = parse_number_cell(*c);
    if (!v || !std::isfinite(*v) || *v != std::floor(*v)) fail(name, fmt::format("'{}' = '{}' is not an integer", name, *c));
    return fmt::format("{}", static_cast<long long>(*v));
  }
  // An optional number: nullopt when absent or missing (nan).
  std::optional<double> number(std::string_view name) const {
    const std::string* c = cell(name);
    if (!c || is_missing(*c)) return std::nullopt;
    auto v = parse_number_cell(*c);
    if (!v) fail(name, fmt::format("'{}' = '{}' is not a number", name, *c));
    return v;
  }
  std::optional<bool> boolean(std::string_view name) const {
    const std::string* c = cell(name);
    if (!c || is_missing(*c)) return std::nullopt;
    if (*c == "True" || *c == "true" || *c == "1") return true;
    if (*c == "False" || *c == "false" || *c == "0") return false;
    fail(name, fmt::format("'{}' = '{}' is not a boolean", name, *c));
  }

 private:
  const CsvTable& t_;
  size_t r_;
};

// Enum cells as Python prints them: "ActivationType.Silu", "<ActivationType.Silu: 0>", or a bare "Silu".
std::string canonical_enum(std::string_view cell, std::string_view enum_name) {
  std::string_view s = trim(cell);
  if (!s.empty() && s.front() == '<') {
    s.remove_prefix(1);
    if (auto colon = s.find(':'); colon != std::string_view::npos) s = s.substr(0, colon);
    if (!s.empty() && s.back() == '>') s.remove_suffix(1);
  }
  if (s.find('.') == std::string_view::npos) return fmt::format("{}.{}", enum_name, s);
  return std::string(s);
}

// Dtype cells: "torch.bfloat16"; a bare "bfloat16" gets the prefix AITER's tables use.
std::string canonical_dtype(std::string_view cell) {
  std::string_view s = trim(cell);
  if (s.find('.') == std::string_view::npos) return fmt::format("torch.{}", s);
  return std::string(s);
}

// The implementations of a blockscale table: every column "<impl> us".
std::vector<std::string> blockscale_impls(const std::vector<std::string>& header) {
  std::vector<std::string> impls;
  for (const auto& h : header)
    if (h.size() > 3 && h.ends_with(" us")) impls.push_back(h.substr(0, h.size() - 3));
  // "ck" first: it is the dispatch row.
  std::stable_partition(impls.begin(), impls.end(), [](const std::string& s) { return s == "ck"; });
  return impls;
}

void blockscale_rows(const CsvTable& t, std::vector<ResultRow>& out) {
  auto impls = blockscale_impls(t.header);
  for (size_t r = 0; r < t.rows.size(); ++r) {
    Row row(t, r);
    auto preshuffle = row.boolean("ck_preshuffle");
    Family family = preshuffle.value_or(false) ? Family::A8W8BlockscaleBpreshuffle : Family::A8W8Blockscale;
    ProblemKey key{family, {row.integer("m"), row.integer("n"), row.integer("k")}};
    bool flydsl = row.boolean("use_flydsl").value_or(false);
    for (const auto& impl : impls) {
      auto us = row.number(impl + " us");
      if (!us) continue;  // this implementation did not run for this row
      ResultRow rr;
      rr.key = key;
      rr.role = impl == "ck" ? ResultRole::Dispatch : ResultRole::Baseline;
      rr.source = ResultSource::None;
      rr.backend = "aiter-" + impl;
      if (flydsl) rr.backend += "-flydsl";
      rr.us = *us;
      rr.tflops = row.number(impl + " TFLOPS").value_or(*us > 0 ? key.flops() / (*us * 1e6) : 0);
      rr.bw = row.number(impl + " TB/s").value_or(0) * 1000.0;  // the test prints TB/s, results hold GB/s
      rr.err_ratio = row.number(impl + " err").value_or(0);
      rr.reason = fmt::format("{}:{}", t.source, t.line_of(r));
      out.push_back(std::move(rr));
    }
  }
}

void moe_rows(const CsvTable& t, std::vector<ResultRow>& out) {
  for (size_t r = 0; r < t.rows.size(); ++r) {
    Row row(t, r);
    ProblemKey key{Family::Moe2Stages, {}};
    for (const auto& [from, to] : kMoeColumns) {
      const std::string* c = row.cell(from);
      if (to == "token" || to == "model_dim" || to == "inter_dim" || to == "expert" || to == "topk") {
        key.cells.push_back(row.integer(from));
      } else if (to == "use_g1u1" || to == "doweight_stage1") {
        key.cells.push_back(row.boolean(from).value_or(false) ? "1" : "0");
      } else {
        if (!c || is_missing(*c)) row.fail(from, fmt::format("missing '{}'", from));
        if (to == "act_type") key.cells.push_back(canonical_enum(*c, "ActivationType"));
        else if (to == "q_type") key.cells.push_back(canonical_enum(*c, "QuantType"));
        else key.cells.push_back(canonical_dtype(*c));
      }
    }
    auto us = row.number("us");
    if (!us) continue;
    ResultRow rr;
    rr.key = key;
    rr.role = ResultRole::Dispatch;
    rr.source = ResultSource::None;
    rr.backend = "aiter-fused_moe";
    rr.us = *us;
    rr.tflops = *us > 0 && std::isfinite(*us) ? key.flops() / (*us * 1e6) : 0;
    const std::string* k1 = row.cell("kernelName1");
    const std::string* k2 = row.cell("kernelName2");
    if (k1 && !is_missing(*k1)) rr.kernel_name = *k1;
    if (k2 && !is_missing(*k2)) rr.kernel_name += (rr.kernel_name.empty() ? "" : "+") + *k2;
    rr.reason = fmt::format("{}:{}", t.source, t.line_of(r));
    out.push_back(std::move(rr));
  }
}

}  // namespace

std::string_view to_string(AiterTableKind kind) {
  return enum_text(kKinds, kind);
}

std::optional<AiterTableKind> detect_aiter_table(const std::vector<std::string>& header) {
  if (has(header, "m") && has(header, "n") && has(header, "k") && has(header, "ck us"))
    return AiterTableKind::GemmA8W8Blockscale;
  bool moe = has(header, "us");
  for (const auto& [from, to] : kMoeColumns) moe = moe && has(header, from);
  if (moe) return AiterTableKind::Moe2Stage;
  return std::nullopt;
}

std::vector<AiterTable> find_aiter_markdown_tables(std::string_view text, const std::string& source) {
  // Split into lines once, keeping 1-based numbers.
  std::vector<std::string_view> lines;
  for (size_t pos = 0; pos <= text.size();) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) {
      if (pos < text.size()) lines.push_back(text.substr(pos));
      break;
    }
    lines.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  std::vector<AiterTable> tables;
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    if (!starts_with_bar(lines[i]) || is_separator(lines[i]) || !is_separator(lines[i + 1])) continue;
    PipeCells head = split_pipe(lines[i]);
    auto kind = detect_aiter_table(head.values);
    size_t j = i + 2;
    if (!kind) {  // some other markdown table: skip it whole
      while (j < lines.size() && starts_with_bar(lines[j])) ++j;
      i = j - 1;
      continue;
    }
    AiterTable table;
    table.kind = *kind;
    table.cells.source = source;
    table.cells.header = head.values;
    table.cells.header_line = i + 1;
    for (; j < lines.size() && starts_with_bar(lines[j]); ++j) {
      PipeCells cells = split_pipe(lines[j]);
      if (cells.values.size() != head.values.size())
        throw InputError(source, j + 1, 1,
                         fmt::format("table row has {} cells, its header (line {}) has {}", cells.values.size(), i + 1,
                                     head.values.size()),
                         "the markdown table looks cut or edited; re-run the test or fix the row");
      table.cells.rows.push_back(std::move(cells.values));
      table.cells.row_lines.push_back(j + 1);
      table.cells.cell_columns.push_back(std::move(cells.columns));
    }
    tables.push_back(std::move(table));
    i = j - 1;
  }
  return tables;
}

std::vector<ResultRow> aiter_table_rows(const AiterTable& table) {
  std::vector<ResultRow> out;
  if (table.kind == AiterTableKind::GemmA8W8Blockscale) blockscale_rows(table.cells, out);
  else moe_rows(table.cells, out);
  return out;
}

}  // namespace cktune
