// Inputs found by fuzzing the results reader (tests/fuzz/fuzz_csv.cpp, docs/fuzzing.md), kept so that
// they are also checked in CI (where the undefined behaviour itself is not caught: no UBSan there).
#include <gtest/gtest.h>

#include <string>

#include "cktune/core/error.hpp"
#include "cktune/formats/csv.hpp"
#include "cktune/results/results.hpp"

namespace cktune {
namespace {

ResultsFile parse_with_cu_num(const std::string& cu_num) {
  return parse_results(parse_csv("family,gfx,cu_num,M,N,K,us\na8w8_blockscale,sm_90," + cu_num + ",1,4096,7168,20.0\n",
                                 "<fuzz>"));
}

// Found by fuzz_csv: an integer cell too large for its type but written as a whole number (a long run
// of digits, or 1e30) went through the "3.0"-style fallback and was converted from double out of range,
// which is undefined behaviour. It must be an input error instead.
TEST(ResultsFuzzRegressions, IntegerCellOutOfRangeIsAnInputError) {
  EXPECT_THROW(parse_with_cu_num(std::string(100, '8') + "132"), InputError);
  EXPECT_THROW(parse_with_cu_num("1e30"), InputError);
  EXPECT_THROW(parse_with_cu_num("-1e30"), InputError);
}

TEST(ResultsFuzzRegressions, IntegerCellWrittenAsWholeDoubleStillReads) {
  EXPECT_EQ(parse_with_cu_num("132.0").rows.at(0).cu_num, 132);
  EXPECT_EQ(parse_with_cu_num("1.32e2").rows.at(0).cu_num, 132);
}

}  // namespace
}  // namespace cktune
