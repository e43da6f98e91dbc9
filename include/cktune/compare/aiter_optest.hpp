#pragma once
// Result tables printed by AITER's op tests, read as result rows so `compare` can put them next to
// cktune's own results. Two tests are understood (columns: docs/cli/compare.md):
//   op_tests/test_gemm_a8w8_blockscale.py  one row per (m, n, k, ck_preshuffle) with "<impl> us",
//                                           "<impl> TFLOPS", "<impl> TB/s", "<impl> err" per implementation
//   op_tests/test_moe_2stage.py             one row per fused-MoE case with its arguments and "us"
// in the two forms they come in: the pandas DataFrame.to_markdown() table that the tests log, found
// anywhere in a captured console log, and the DataFrame.to_csv() file (blockscale's -o option).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cktune/formats/csv.hpp"
#include "cktune/results/results.hpp"

namespace cktune {

enum class AiterTableKind {
  GemmA8W8Blockscale,  // test_gemm_a8w8_blockscale.py
  Moe2Stage,           // test_moe_2stage.py
};
std::string_view to_string(AiterTableKind kind);

// A table as printed: column names and cell text, with the source line of each row for messages.
struct AiterTable {
  AiterTableKind kind = AiterTableKind::GemmA8W8Blockscale;
  CsvTable cells;  // header + rows (cells trimmed); row_lines are lines of the original file
};

// The kind of op-test table whose columns `header` has, or nullopt.
std::optional<AiterTableKind> detect_aiter_table(const std::vector<std::string>& header);

// Every markdown ("pipe") table in `text` whose columns are an op-test table's. A table is a header line
// starting with '|', a separator line of dashes and colons, then rows until the first line that does not
// start with '|'. Tables of other columns are skipped. Throws InputError for a row whose cell count
// differs from its header's.
std::vector<AiterTable> find_aiter_markdown_tables(std::string_view text, const std::string& source);

// Result rows from an op-test table. gfx and cu_num are unknown (empty, 0): the tests do not print them.
// Blockscale: the "ck" implementation (what aiter.gemm_a8w8_blockscale[_bpreshuffle] dispatches through
// the tuned table) gives role dispatch, backend "aiter-ck"; every other "<impl> us" column gives a
// baseline row with backend "aiter-<impl>". Family a8w8_blockscale_bpreshuffle when ck_preshuffle is
// True, else a8w8_blockscale. MoE: one dispatch row, backend "aiter-fused_moe", TFLOPS from the shape.
// Missing values (empty, nan) give no row. Throws InputError (file:line:col) for a key or time cell that
// does not parse.
std::vector<ResultRow> aiter_table_rows(const AiterTable& table);

}  // namespace cktune
