// Inputs found by fuzzing the CSV reader (tests/fuzz/fuzz_csv.cpp, docs/fuzzing.md), kept so that the
// properties the fuzz target checks are also checked in CI.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cktune/core/error.hpp"
#include "cktune/formats/csv.hpp"

namespace cktune {
namespace {

// Found by fuzz_csv: a byte-order mark after leading spaces was kept as (part of) the first header name,
// and render_csv then wrote it at the start of the file, where parse_csv drops it: the table did not
// read back as itself (here the header would even have vanished: "empty file").
TEST(CsvFuzzRegressions, ByteOrderMarkAfterLeadingSpacesIsNotAHeaderName) {
  const std::string text = std::string(12, ' ') + "\xEF\xBB\xBF" + std::string(4, ' ');
  EXPECT_THROW(parse_csv(text, "<fuzz>"), InputError);  // no header name left: empty column name
}

TEST(CsvFuzzRegressions, ByteOrderMarkAfterBlankLineReadsLikeOneAtTheStart) {
  const CsvTable table = parse_csv("\n  \xEF\xBB\xBFM,N,K\n1,2,3\n", "<fuzz>");
  ASSERT_EQ(table.header, (std::vector<std::string>{"M", "N", "K"}));
  EXPECT_EQ(table.header_line, 2u);
  const CsvTable again = parse_csv(render_csv(table), "<fuzz>");
  EXPECT_EQ(again.header, table.header);
  EXPECT_EQ(again.rows, table.rows);
}

// Found by fuzz_csv after the first fix: a doubled byte-order mark left one in the header name.
TEST(CsvFuzzRegressions, DoubledByteOrderMarkIsDroppedToo) {
  EXPECT_THROW(parse_csv("\r\n\xEF\xBB\xBF\xEF\xBB\xBF", "<fuzz>"), InputError);
  const CsvTable table = parse_csv("\xEF\xBB\xBF\xEF\xBB\xBFM,N\n1,2\n", "<fuzz>");
  EXPECT_EQ(table.header, (std::vector<std::string>{"M", "N"}));
}

// Found by fuzz_csv after the second fix: blanks between the mark and the name stayed in the name, and
// were trimmed away when the rendered table was read back.
TEST(CsvFuzzRegressions, BlanksAfterByteOrderMarkAreTrimmed) {
  const CsvTable table = parse_csv("\r\r\xEF\xBB\xBF\tget", "<fuzz>");
  EXPECT_EQ(table.header, (std::vector<std::string>{"get"}));
  EXPECT_EQ(parse_csv(render_csv(table), "<fuzz>").header, table.header);
}

}  // namespace
}  // namespace cktune
