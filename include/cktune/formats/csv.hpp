#pragma once
// Plain CSV tables as AITER reads and writes them (no quoting: AITER's cells never contain commas).
// Reading is lenient (spaces after commas, trailing tabs, CRLF); writing is exact.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cktune {

struct CsvTable {
  std::string source;                           // file name for messages ("<stdin>", "<memory>")
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;   // one vector of cells per data row, each cell trimmed
  std::vector<std::uint64_t> row_lines;         // 1-based source line of each row (0 = made in memory)
  std::uint64_t header_line = 0;                // 1-based source line of the header (0 = made in memory)
  // 1-based character column where each cell starts in its source line (empty when made in memory), so
  // that later checks (a non-numeric key, a bad `us`) can name file:line:col.
  std::vector<std::vector<std::uint32_t>> cell_columns;
  // Rows that had fewer cells than the header and were padded with empty cells (only with
  // CsvOptions::min_row_cells): (row index, cell count in the file).
  std::vector<std::pair<size_t, size_t>> short_rows;

  // Index of a column, or nullopt when absent.
  std::optional<size_t> column(std::string_view name) const;

  // Source line of row `row` (0 when unknown) and source column of cell (row, col) (0 when unknown).
  std::uint64_t line_of(size_t row) const { return row < row_lines.size() ? row_lines[row] : 0; }
  std::uint64_t column_of(size_t row, size_t col) const;
};

struct CsvOptions {
  // A row with fewer cells than the header is an error unless it has at least this many cells; then it is
  // padded with empty cells, as pandas (AITER's reader) fills missing trailing cells with NaN. Real AITER
  // tables have rows that lack a trailing `_tag` cell; the typed layer (table.hpp) decides how many
  // cells a row needs (its key columns and `us`).
  size_t min_row_cells = static_cast<size_t>(-1);
  // read_csv: longest line accepted (bounds the memory a hostile file can take); 0 = default_max_line_bytes()
  // (1 MiB unless CKTUNE_MAX_LINE_BYTES says otherwise). Longer lines are an InputError naming file:line.
  std::uint64_t max_line_bytes = 0;
};

// Parse CSV text. Throws InputError naming source, line and column on malformed input
// (empty file, binary data, duplicated header names, a row with fewer or more cells than the header).
// Normalisations (docs/formats.md): a UTF-8 byte-order mark is dropped, CRLF and a lone CR are read as LF, blank lines
// are skipped, spaces and tabs around every cell are stripped. Quoted cells are rejected: AITER never
// writes them and a comma inside a cell would break AITER's own reader.
CsvTable parse_csv(std::string_view text, const std::string& source, const CsvOptions& options = {});

// read_input (with the line limit of `options`) + parse_csv.
CsvTable read_csv(const std::string& path, const CsvOptions& options = {});

// Exact rendering: header and rows joined by ',', each line ending in '\n'.
std::string render_csv(const CsvTable& table);

// render_csv + write_file_atomic: never leaves a half-written file.
void write_csv_atomic(const CsvTable& table, const std::string& path);

}  // namespace cktune
