#include "cktune/formats/csv.hpp"

#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cktune/core/error.hpp"
#include "cktune/core/io.hpp"

namespace cktune {

namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not one.
size_t utf8_sequence_length(std::string_view s, size_t i) {
  auto b = static_cast<unsigned char>(s[i]);
  size_t n = b >= 0xF0 && b <= 0xF4 ? 4 : b >= 0xE0 ? 3 : b >= 0xC2 && b <= 0xDF ? 2 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  return n;
}

// A table is text: reject NUL, control bytes other than tab/CR/LF, and bytes that are not UTF-8, naming the
// first one. This is what catches a binary file (or a gzip that failed to decode) passed by mistake.
void check_text(std::string_view text, const std::string& source) {
  std::uint64_t line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < text.size();) {
    auto b = static_cast<unsigned char>(text[i]);
    // '\n', "\r\n" and a lone '\r' (old Mac files) each end a line, as in parse_csv.
    if (b == '\n' || (b == '\r' && (i + 1 == text.size() || text[i + 1] != '\n'))) {
      ++line;
      line_start = ++i;
      continue;
    }
    size_t len = 1;
    bool bad = false;
    if (b < 0x20) bad = b != '\t' && b != '\r';
    else if (b == 0x7F) bad = true;
    else if (b >= 0x80) bad = (len = utf8_sequence_length(text, i)) == 0;
    if (bad)
      throw InputError(source, line, i - line_start + 1,
                       fmt::format("binary data (byte 0x{:02x}): not a CSV text table", b),
                       "pass an AITER CSV table (plain text, comma-separated)");
    i += len;
  }
}

struct Line {
  std::string_view text;  // without the line break and a trailing CR
  std::uint64_t number;   // 1-based
};

struct Cells {
  std::vector<std::string> values;
  std::vector<std::uint32_t> columns;  // 1-based start column of each cell
};

Cells split_line(const Line& line, const std::string& source) {
  Cells out;
  std::string_view t = line.text;
  size_t start = 0;
  while (true) {
    size_t comma = t.find(',', start);
    size_t end = comma == std::string_view::npos ? t.size() : comma;
    size_t b = start, e = end;
    while (b < e && is_blank(t[b])) ++b;
    while (e > b && is_blank(t[e - 1])) --e;
    std::string_view cell = t.substr(b, e - b);
    if (auto q = cell.find('"'); q != std::string_view::npos)
      throw InputError(source, line.number, b + q + 1, "quoted cell: AITER tables never quote cells",
                       "remove the quotes; cells must not contain commas");
    out.values.emplace_back(cell);
    out.columns.push_back(static_cast<std::uint32_t>(b + 1));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

std::optional<size_t> CsvTable::column(std::string_view name) const {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  return std::nullopt;
}

std::uint64_t CsvTable::column_of(size_t row, size_t col) const {
  if (row >= cell_columns.size() || col >= cell_columns[row].size()) return 0;
  return cell_columns[row][col];
}

CsvTable parse_csv(std::string_view text, const std::string& source, const CsvOptions& options) {
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
  check_text(text, source);

  CsvTable table;
  table.source = source;
  std::uint64_t number = 0;
  size_t pos = 0;
  bool have_header = false;
  std::uint64_t last_line = 0;
  while (pos < text.size()) {
    // Lines end at '\n', "\r\n" or a lone '\r': a file saved with old Mac line endings is a table of
    // many lines (as pandas reads it), not one long header.
    size_t nl = text.find_first_of("\r\n", pos);
    size_t end = nl == std::string_view::npos ? text.size() : nl;
    Line line{text.substr(pos, end - pos), ++number};
    if (nl == std::string_view::npos) pos = text.size();
    else pos = text[nl] == '\r' && nl + 1 < text.size() && text[nl + 1] == '\n' ? nl + 2 : nl + 1;
    last_line = number;
    // Blank lines occur in hand-edited AITER files; pandas skips them, so do we.
    if (line.text.find_first_not_of(" \t\r") == std::string_view::npos) continue;

    Cells cells = split_line(line, source);
    // Byte-order marks after leading blank lines or spaces (or a doubled one) still mark the start of the
    // text: drop them from the first header name too, or it would differ from the name read back after
    // rendering.
    // Blanks after a mark are stripped again, as they are around every cell.
    while (!have_header && !cells.values.empty() && cells.values[0].starts_with(kBom)) {
      cells.values[0].erase(0, kBom.size());
      cells.values[0].erase(0, cells.values[0].find_first_not_of(" \t\r"));
    }
    if (!have_header) {
      std::unordered_map<std::string_view, size_t> seen;
      for (size_t i = 0; i < cells.values.size(); ++i) {
        const std::string& name = cells.values[i];
        bool last = i + 1 == cells.values.size();
        // An empty last name is a trailing comma after the header; any other empty name is a broken header.
        if (name.empty() && !(last && i > 0))
          throw InputError(source, line.number, cells.columns[i], fmt::format("empty column name (column {})", i + 1),
                           "every header cell must name a column, e.g. M,N,K");
        if (name.empty()) continue;
        if (auto [it, fresh] = seen.emplace(name, i); !fresh)
          throw InputError(source, line.number, cells.columns[i],
                           fmt::format("duplicated column name '{}' (also column {})", name, it->second + 1),
                           "each column may appear only once in the header");
      }
      table.header = std::move(cells.values);
      table.header_line = line.number;
      have_header = true;
      continue;
    }
    size_t want = table.header.size();
    if (cells.values.size() < want && cells.values.size() >= options.min_row_cells) {
      table.short_rows.emplace_back(table.rows.size(), cells.values.size());
      cells.values.resize(want);
      cells.columns.resize(want, static_cast<std::uint32_t>(line.text.size() + 1));
    }
    if (cells.values.size() < want)
      throw InputError(source, line.number, line.text.size() + 1,
                       fmt::format("short row: {} cells, the header has {}", cells.values.size(), want),
                       fmt::format("every row needs one cell per header column ({})", fmt::join(table.header, ",")));
    if (cells.values.size() > want)
      throw InputError(source, line.number, cells.columns[want],
                       fmt::format("long row: {} cells, the header has {}", cells.values.size(), want),
                       fmt::format("every row needs one cell per header column ({})", fmt::join(table.header, ",")));
    table.rows.push_back(std::move(cells.values));
    table.row_lines.push_back(line.number);
    table.cell_columns.push_back(std::move(cells.columns));
  }
  if (!have_header)
    throw InputError(source, last_line == 0 ? 1 : last_line, 1, "empty file: no header line",
                     "an AITER table starts with a header such as M,N,K");
  return table;
}

CsvTable read_csv(const std::string& path, const CsvOptions& options) {
  ReadOptions limits;
  limits.max_line_bytes = options.max_line_bytes ? options.max_line_bytes : default_max_line_bytes();
  return parse_csv(read_input(path, limits), path == "-" ? "<stdin>" : path, options);
}

std::string render_csv(const CsvTable& table) {
  auto check = [&](const std::string& cell, size_t row) {
    if (cell.find_first_of(",\n\r\"") != std::string::npos)
      throw Error(fmt::format("cannot write {}: cell '{}' in {} contains a comma, quote or line break", table.source,
                              cell, row == 0 ? std::string("the header") : fmt::format("row {}", row)),
                  "AITER tables cannot hold such cells");
  };
  std::string out;
  size_t width = table.header.size();
  for (const auto& name : table.header) check(name, 0);
  out += fmt::format("{}\n", fmt::join(table.header, ","));
  for (size_t r = 0; r < table.rows.size(); ++r) {
    const auto& row = table.rows[r];
    if (row.size() != width)
      throw Error(fmt::format("cannot write {}: row {} has {} cells, the header has {}", table.source, r + 1,
                              row.size(), width));
    for (const auto& cell : row) check(cell, r + 1);
    out += fmt::format("{}\n", fmt::join(row, ","));
  }
  return out;
}

void write_csv_atomic(const CsvTable& table, const std::string& path) { write_file_atomic(path, render_csv(table)); }

}  // namespace cktune
