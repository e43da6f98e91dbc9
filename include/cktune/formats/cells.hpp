#pragma once
// Cell formatting for rows cktune writes into AITER tables. AITER's tuners write Python floats, so every
// number here is rendered exactly as Python would print it; all table formatting lives in this one place.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cktune/formats/family.hpp"

namespace cktune {

// Python's repr(float(x)): the shortest string that reads back as x, fixed notation with at least one
// digit after the point ("5.0", "0.0029") when 1e-4 <= |x| < 1e16, otherwise exponent form ("1e-05",
// "1.5e-05", "1e+16"); "inf", "-inf", "nan", "-0.0" as Python prints them.
std::string py_float_repr(double x);

// Python's repr(round(x, ndigits)): x rounded correctly (ties to even, on the exact binary value) to
// `ndigits` decimals, then printed as py_float_repr. ndigits may be 0..17.
std::string py_round_repr(double x, int ndigits);

// Python's format(x, ".{decimals}%"): x * 100 in fixed notation plus '%' ("0.0%", "18.2%").
std::string py_percent(double x, int decimals = 1);

// The cells AITER's tuners write (docs/formats.md): one function per kind of column.
std::string format_us(double us);              // round(us, 4)
std::string format_tflops(double tflops);      // round(tflops, 2)
std::string format_bw(double gb_per_s);        // round(bw, 2)
std::string format_err_ratio(double ratio);    // round(errRatio, 4), a fraction
std::string format_moe_err(double fraction);   // MoE err1/err2: a percent with one decimal
std::string format_bool(bool b);               // 1 / 0
std::string format_int(std::int64_t v);

// Parse a number cell the way Python's float() would accept AITER's cells ("5.0", "1e-05", "inf",
// "nan"); nullopt when the cell is not a number. A percent cell ("18.2%") parses to its fraction
// (0.182) only through parse_percent_cell.
std::optional<double> parse_number_cell(std::string_view cell);
std::optional<double> parse_percent_cell(std::string_view cell);

// Build one row in `header`'s column order from named cells. Every named cell must be a column of the
// header (else Error: a misspelt name must not vanish silently); columns with no named cell are left
// empty, except those listed in `required`, which must be given (Error naming the missing ones).
using NamedCells = std::vector<std::pair<std::string_view, std::string>>;
std::vector<std::string> make_row(std::span<const std::string> header, const NamedCells& cells,
                                  std::span<const std::string_view> required = {});

// A new tuned row in the family's current tuned schema (spec(f).tuned): every column of that schema
// must be named.
std::vector<std::string> make_tuned_row(Family f, const NamedCells& cells);

}  // namespace cktune
