#include "cktune/formats/csv.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/core/io.hpp"

namespace cktune {
namespace {

// Runs `fn`, expects an InputError, returns it for inspection.
template <class Fn>
InputError expect_input_error(Fn fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no InputError thrown";
  return InputError("", 0, 0, "");
}

TEST(Csv, ParsesHeaderRowsAndLines) {
  CsvTable t = parse_csv("M,N,K\n1,2,3\n4,5,6\n", "x.csv");
  EXPECT_EQ(t.source, "x.csv");
  ASSERT_EQ(t.header, (std::vector<std::string>{"M", "N", "K"}));
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[1], (std::vector<std::string>{"4", "5", "6"}));
  EXPECT_EQ(t.row_lines, (std::vector<std::uint64_t>{2, 3}));
  EXPECT_EQ(t.header_line, 1u);
  EXPECT_EQ(t.column("N"), 1u);
  EXPECT_FALSE(t.column("B").has_value());
  EXPECT_EQ(t.column_of(1, 2), 5u);
  EXPECT_EQ(t.column_of(5, 0), 0u);
}

TEST(Csv, LenientSpacesTabsCrlfBlankLinesBom) {
  // As in AITER's untuned files: spaces after commas, trailing tabs, blank lines, CRLF from Windows editors.
  CsvTable t = parse_csv("\xEF\xBB\xBFM, N ,K\r\n1, 16384, 16384\r\n\r\n  \n128,1536,5120\t\n", "u.csv");
  ASSERT_EQ(t.header, (std::vector<std::string>{"M", "N", "K"}));
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0], (std::vector<std::string>{"1", "16384", "16384"}));
  EXPECT_EQ(t.rows[1], (std::vector<std::string>{"128", "1536", "5120"}));
  EXPECT_EQ(t.row_lines, (std::vector<std::uint64_t>{2, 5}));
  EXPECT_EQ(t.column_of(0, 1), 4u);  // cell starts after the space
  EXPECT_EQ(render_csv(t), "M,N,K\n1,16384,16384\n128,1536,5120\n");
}

TEST(Csv, HeaderOnlyWithoutTrailingNewline) {
  CsvTable t = parse_csv("M,N,K", "empty_untuned.csv");
  EXPECT_EQ(t.header.size(), 3u);
  EXPECT_TRUE(t.rows.empty());
  EXPECT_EQ(render_csv(t), "M,N,K\n");
}

TEST(Csv, EmptyLastCellIsKept) {
  // tuned_fmoe.csv rows end with ',' for an empty _tag.
  CsvTable t = parse_csv("a,b,_tag\n1,2,\n", "t.csv");
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.rows[0][2], "");
  EXPECT_EQ(render_csv(t), "a,b,_tag\n1,2,\n");
}

TEST(Csv, RoundTripIsByteIdenticalForCleanText) {
  std::string text = "gfx,cu_num,M,N,K,us,kernelName\ngfx942,304,1,2,3,5.0,k_1x2\ngfx942,304,2,2,3,0.0029,k\n";
  EXPECT_EQ(render_csv(parse_csv(text, "m")), text);
}

TEST(Csv, EmptyFileIsAnError) {
  for (std::string text : {"", "\n\n", "  \r\n", "\xEF\xBB\xBF"}) {
    InputError e = expect_input_error([&] { parse_csv(text, "e.csv"); });
    EXPECT_EQ(e.file(), "e.csv");
    EXPECT_GE(e.line(), 1u);
    EXPECT_NE(std::string(e.what()).find("empty file"), std::string::npos) << e.what();
  }
}

TEST(Csv, BinaryIsAnErrorAtTheFirstBadByte) {
  InputError e = expect_input_error([] { parse_csv(std::string("M,N\n1,\0\x01", 8), "b.bin"); });
  EXPECT_EQ(e.line(), 2u);
  EXPECT_EQ(e.column(), 3u);
  EXPECT_NE(std::string(e.what()).find("b.bin:2:3: binary data"), std::string::npos) << e.what();
  // Invalid UTF-8 (a lone continuation byte) counts as binary; valid UTF-8 does not.
  EXPECT_EQ(expect_input_error([] { parse_csv("M\n\x80\n", "u"); }).line(), 2u);
  EXPECT_NO_THROW(parse_csv("name\ncaf\xC3\xA9\n", "u"));
}

TEST(Csv, DuplicatedHeaderNameNamesTheSecondColumn) {
  InputError e = expect_input_error([] { parse_csv("M,N,M\n1,2,3\n", "d.csv"); });
  EXPECT_EQ(e.line(), 1u);
  EXPECT_EQ(e.column(), 5u);
  EXPECT_NE(e.message().find("duplicated column name 'M'"), std::string::npos) << e.message();
}

TEST(Csv, EmptyHeaderNameIsAnErrorButATrailingCommaIsNot) {
  EXPECT_EQ(expect_input_error([] { parse_csv("M,,K\n", "h"); }).column(), 3u);
  EXPECT_NO_THROW(parse_csv("M,N,\n1,2,\n", "h"));
}

TEST(Csv, ShortAndLongRowsNameLineAndColumn) {
  InputError s = expect_input_error([] { parse_csv("M,N,K\n1,2,3\n4,5\n", "s.csv"); });
  EXPECT_EQ(s.line(), 3u);
  EXPECT_EQ(s.column(), 4u);  // just past the end of "4,5"
  EXPECT_NE(s.message().find("short row: 2 cells"), std::string::npos) << s.message();
  InputError l = expect_input_error([] { parse_csv("M,N,K\n1,2,3,44\n", "l.csv"); });
  EXPECT_EQ(l.line(), 2u);
  EXPECT_EQ(l.column(), 7u);  // the first extra cell
  EXPECT_NE(l.message().find("long row"), std::string::npos);
}

TEST(Csv, ShortRowsArePaddedOnlyWhenAllowed) {
  CsvOptions lenient;
  lenient.min_row_cells = 2;
  CsvTable t = parse_csv("a,b,_tag\n1,2\n3,4,x\n", "p.csv", lenient);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0], (std::vector<std::string>{"1", "2", ""}));
  EXPECT_EQ(t.short_rows, (std::vector<std::pair<size_t, size_t>>{{0, 2}}));
  EXPECT_EQ(t.column_of(0, 2), 4u);
  EXPECT_EQ(expect_input_error([&] { parse_csv("a,b,_tag\n1\n", "p.csv", lenient); }).line(), 2u);
  EXPECT_THROW(parse_csv("a,b,_tag\n1,2\n", "p.csv"), InputError);
}

TEST(Csv, QuotedCellsAreRejected) {
  InputError e = expect_input_error([] { parse_csv("M,name\n1,\"a,b\"\n", "q.csv"); });
  EXPECT_EQ(e.line(), 2u);
  EXPECT_EQ(e.column(), 3u);
}

TEST(Csv, RenderRefusesCellsItCannotWrite) {
  CsvTable t;
  t.source = "out.csv";
  t.header = {"a", "b"};
  t.rows = {{"1", "x,y"}};
  EXPECT_THROW(render_csv(t), Error);
  t.rows = {{"1"}};
  EXPECT_THROW(render_csv(t), Error);
}

TEST(Csv, WriteAtomicAndReadBack) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("cktune_csv_test." + std::to_string(::getpid()));
  fs::remove_all(dir);
  std::string path = (dir / "sub" / "t.csv").string();
  CsvTable t;
  t.header = {"M", "N"};
  t.rows = {{"1", "2"}};
  write_csv_atomic(t, path);
  CsvTable back = read_csv(path);
  EXPECT_EQ(back.source, path);
  EXPECT_EQ(back.rows, t.rows);
  // A failed render leaves the old file and no temporary behind.
  t.rows = {{"1", "2,3"}};
  EXPECT_THROW(write_csv_atomic(t, path), Error);
  EXPECT_EQ(read_input(path), "M,N\n1,2\n");
  size_t files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir / "sub")) ++files;
  EXPECT_EQ(files, 1u);
  fs::remove_all(dir);
}

TEST(Csv, ReadCsvNamesAMissingFile) {
  try {
    read_csv("/nonexistent/x.csv");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/x.csv"), std::string::npos);
  }
}

TEST(Csv, LoneCarriageReturnsEndLines) {
  // Old Mac line endings: before, the whole file was one header line and the repeated names of the rows
  // were reported as "duplicated column name".
  CsvTable t = parse_csv("M,N,K\r1,2,3\r4,5,6\r", "mac.csv");
  EXPECT_EQ(t.header, (std::vector<std::string>{"M", "N", "K"}));
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[1], (std::vector<std::string>{"4", "5", "6"}));
  EXPECT_EQ(t.line_of(1), 3u);
  // Mixed: CRLF, lone CR and LF in one file; a lone CR before a bad byte still counts lines right.
  CsvTable m = parse_csv("M,N,K\r\n1,2,3\r4,5,6\n", "mixed.csv");
  EXPECT_EQ(m.rows.size(), 2u);
  EXPECT_EQ(m.line_of(1), 3u);
  try {
    parse_csv("M,N,K\r1,2,\x01\n", "bin.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 2u);
  }
}

TEST(Csv, ReadCsvRefusesALineOverTheLimit) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / fmt::format("cktune_csv_limit_{}", ::getpid());
  fs::create_directories(dir);
  const std::string path = (dir / "long.csv").string();
  {
    std::ofstream out(path);
    out << "M,N,K\n1,2,3\n" << std::string(5000, '9') << ",1,1\n";
  }
  CsvOptions o;
  o.max_line_bytes = 4096;
  try {
    read_csv(path, o);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 3u);
    EXPECT_NE(std::string(e.what()).find("limit of 4096 bytes"), std::string::npos);
  }
  o.max_line_bytes = 8192;
  EXPECT_EQ(read_csv(path, o).rows.size(), 2u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cktune
