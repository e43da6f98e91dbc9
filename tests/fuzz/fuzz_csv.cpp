// libFuzzer target: CSV reading (cktune/formats/csv.hpp), the typed table layer (formats/table.hpp: family
// detection, key extraction) and the results-file reader (results/results.hpp).
//
// Input: an optional selector byte, then CSV text. A first byte in 0x01..0x10 picks the file name the
// text is read under (AITER's untuned / tuned file name of one family), since detect_layout takes the
// name as a hint; any other first byte is part of the text, read as "<fuzz>".
// Besides crashes and sanitizer reports, the target checks that a parsed table survives
// render_csv -> parse_csv unchanged (what `merge` relies on when it rewrites a table).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>
#include <string_view>

#include "cktune/core/error.hpp"
#include "cktune/formats/csv.hpp"
#include "cktune/formats/family.hpp"
#include "cktune/formats/table.hpp"
#include "cktune/results/results.hpp"

namespace {

std::string source_for(unsigned selector) {
  const size_t n = std::size(cktune::kAllFamilies);
  const unsigned index = selector - 1;  // 0 .. 2n-1
  const auto& s = cktune::spec(cktune::kAllFamilies[(index / 2) % n]);
  return std::string(index % 2 == 0 ? s.untuned_file : s.tuned_file);
}

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "fuzz_csv: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string source = "<fuzz>";
  if (!text.empty() && text[0] >= 0x01 && text[0] <= 0x10) {
    source = source_for(static_cast<unsigned>(text[0]));
    text.remove_prefix(1);
  }

  // Strict parse (every row as long as the header), then the render round trip and the results reader.
  try {
    const cktune::CsvTable table = cktune::parse_csv(text, source);
    if (table.rows.size() != table.row_lines.size()) fail("rows and row_lines differ in length");
    const std::string rendered = cktune::render_csv(table);
    cktune::CsvTable again;
    try {
      again = cktune::parse_csv(rendered, source);
    } catch (const cktune::Error& e) {
      std::fprintf(stderr, "re-parse of rendered table failed: %s\n", e.what());
      fail("render_csv output is not readable by parse_csv");
    }
    if (again.header != table.header || again.rows != table.rows) fail("render/parse round trip changed the table");
    if (cktune::is_results_table(table)) {
      try {
        (void)cktune::parse_results(table);
      } catch (const cktune::Error&) {
      }
    }
  } catch (const cktune::Error&) {
  }

  // Lenient parse as read_table does it (short rows padded), then the typed layer.
  try {
    cktune::CsvOptions options;
    options.min_row_cells = 1;
    cktune::Table table = cktune::make_table(cktune::parse_csv(text, source, options));
    if (table.has_keys() && table.keys.size() != table.csv.rows.size()) fail("one key per row expected");
    for (const auto& key : table.keys) (void)key.text();
    (void)table.layout.family_text();
  } catch (const cktune::Error&) {
  }
  return 0;
}
