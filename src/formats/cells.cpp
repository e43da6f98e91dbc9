#include "cktune/formats/cells.hpp"

#include <charconv>
#include <cmath>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cktune/core/error.hpp"

namespace cktune {

namespace {

// Shortest round-trip digits of a finite, non-zero |x| and the exponent of the first digit
// (x = 0.d1d2d3... * 10^decpt), as Python's repr computes them.
struct Digits {
  std::string digits;
  int decpt;
};

Digits shortest_digits(double x) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), std::fabs(x), std::chars_format::scientific);
  if (ec != std::errc()) throw Error("internal: to_chars failed");
  std::string_view s(buf, static_cast<size_t>(end - buf));
  size_t e = s.find('e');
  Digits d;
  for (char c : s.substr(0, e))
    if (c != '.') d.digits += c;
  int exp10 = 0;
  std::string_view es = s.substr(e + 1);
  if (!es.empty() && es.front() == '+') es.remove_prefix(1);
  std::from_chars(es.data(), es.data() + es.size(), exp10);
  while (d.digits.size() > 1 && d.digits.back() == '0') d.digits.pop_back();
  d.decpt = exp10 + 1;
  return d;
}

}  // namespace

std::string py_float_repr(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
  std::string sign = std::signbit(x) ? "-" : "";
  if (x == 0) return sign + "0.0";
  Digits d = shortest_digits(x);
  const int n = static_cast<int>(d.digits.size());
  // Python switches to exponent form when the decimal point is more than 4 places left of the first
  // digit or more than 16 places right of it.
  if (d.decpt <= -4 || d.decpt > 16) {
    std::string mant = d.digits.substr(0, 1);
    if (n > 1) {
      mant += '.';
      mant += std::string_view(d.digits).substr(1);
    }
    int e = d.decpt - 1;
    return fmt::format("{}{}e{}{:02d}", sign, mant, e < 0 ? '-' : '+', std::abs(e));
  }
  if (d.decpt <= 0) return sign + "0." + std::string(static_cast<size_t>(-d.decpt), '0') + d.digits;
  if (d.decpt >= n) return sign + d.digits + std::string(static_cast<size_t>(d.decpt - n), '0') + ".0";
  return sign + d.digits.substr(0, static_cast<size_t>(d.decpt)) + "." + d.digits.substr(static_cast<size_t>(d.decpt));
}

std::string py_round_repr(double x, int ndigits) {
  if (!std::isfinite(x)) return py_float_repr(x);
  if (ndigits < 0 || ndigits > 17) throw Error(fmt::format("internal: py_round_repr ndigits {} out of range", ndigits));
  // to_chars with a precision is exact (correctly rounded from the binary value, ties to even), which is
  // what Python's round() does before converting the decimal back to the nearest double.
  char buf[400];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), x, std::chars_format::fixed, ndigits);
  if (ec != std::errc()) throw Error("internal: to_chars failed");
  double rounded = 0;
  std::from_chars(buf, end, rounded);
  return py_float_repr(rounded);
}

std::string py_percent(double x, int decimals) {
  double v = x * 100.0;  // Python multiplies in double precision before formatting
  if (std::isnan(v)) return "nan%";
  if (std::isinf(v)) return v < 0 ? "-inf%" : "inf%";
  char buf[400];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed, decimals);
  if (ec != std::errc()) throw Error("internal: to_chars failed");
  return std::string(buf, end) + "%";
}

std::string format_us(double us) { return py_round_repr(us, 4); }
std::string format_tflops(double tflops) { return py_round_repr(tflops, 2); }
std::string format_bw(double gb_per_s) { return py_round_repr(gb_per_s, 2); }
std::string format_err_ratio(double ratio) { return py_round_repr(ratio, 4); }
std::string format_moe_err(double fraction) { return py_percent(fraction, 1); }
std::string format_bool(bool b) { return b ? "1" : "0"; }
std::string format_int(std::int64_t v) { return std::to_string(v); }

std::optional<double> parse_number_cell(std::string_view cell) {
  if (!cell.empty() && cell.front() == '+') cell.remove_prefix(1);
  if (cell.empty()) return std::nullopt;
  double v = 0;
  auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
  if (ec != std::errc() || ptr != cell.data() + cell.size()) return std::nullopt;
  return v;
}

std::optional<double> parse_percent_cell(std::string_view cell) {
  if (cell.empty() || cell.back() != '%') return std::nullopt;
  auto v = parse_number_cell(cell.substr(0, cell.size() - 1));
  if (!v) return std::nullopt;
  return *v / 100.0;
}

std::vector<std::string> make_row(std::span<const std::string> header, const NamedCells& cells,
                                  std::span<const std::string_view> required) {
  std::vector<std::string> row(header.size());
  std::vector<bool> given(header.size(), false);
  for (const auto& [name, value] : cells) {
    size_t i = 0;
    while (i < header.size() && header[i] != name) ++i;
    if (i == header.size())
      throw Error(fmt::format("internal: column '{}' is not in the table header ({})", name, fmt::join(header, ",")));
    row[i] = value;
    given[i] = true;
  }
  std::vector<std::string_view> missing;
  for (std::string_view name : required) {
    size_t i = 0;
    while (i < header.size() && header[i] != name) ++i;
    if (i == header.size() || !given[i]) missing.push_back(name);
  }
  if (!missing.empty()) throw Error(fmt::format("internal: a new row lacks column(s) {}", fmt::join(missing, ",")));
  return row;
}

std::vector<std::string> make_tuned_row(Family f, const NamedCells& cells) {
  const auto& schema = spec(f).tuned;
  std::vector<std::string> header(schema.begin(), schema.end());
  return make_row(header, cells, schema);
}

}  // namespace cktune
