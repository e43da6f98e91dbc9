#pragma once
// Plain CSV tables as AITER reads and writes them (no quoting: AITER's cells never contain commas).
// Reading is lenient (spaces after commas, trailing tabs, CRLF); writing is exact.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cktune {

struct CsvTable {
  std::string source;                           // file name for messages ("<stdin>", "<memory>")
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;   // one vector of cells per data row, each cell trimmed
  std::vector<std::uint64_t> row_lines;         // 1-based source line of each row (0 = made in memory)

  // Index of a column, or nullopt when absent.
  std::optional<size_t> column(std::string_view name) const;
};

// Parse CSV text. Throws InputError naming source, line and column on malformed input
// (empty file, binary data, duplicated header names, a row with fewer or more cells than the header).
CsvTable parse_csv(std::string_view text, const std::string& source);

// read_input + parse_csv.
CsvTable read_csv(const std::string& path);

// Exact rendering: header and rows joined by ',', each line ending in '\n'.
std::string render_csv(const CsvTable& table);

// render_csv + write_file_atomic: never leaves a half-written file.
void write_csv_atomic(const CsvTable& table, const std::string& path);

}  // namespace cktune
