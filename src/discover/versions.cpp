#include "cktune/discover/versions.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace cktune::discover {

namespace {
// Ordering of the pre/post phases; a plain release sits between rc and post.
constexpr int kPhaseDev = 0, kPhaseAlpha = 1, kPhaseBeta = 2, kPhaseRc = 3, kPhaseFinal = 4, kPhasePost = 5;

struct PhaseName {
  std::string_view text;
  int phase;
};
// Longer spellings first so "rc" is not read as "r"... and "alpha" before "a".
constexpr PhaseName kPhaseNames[] = {
    {"alpha", kPhaseAlpha}, {"beta", kPhaseBeta}, {"post", kPhasePost}, {"dev", kPhaseDev}, {"rc", kPhaseRc},
    {"pre", kPhaseRc},      {"c", kPhaseRc},      {"a", kPhaseAlpha},   {"b", kPhaseBeta},
};

bool read_number(std::string_view& s, long& out) {
  auto end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, out);
  if (ec != std::errc() || p == s.data()) return false;
  s.remove_prefix(static_cast<size_t>(p - s.data()));
  return true;
}
}  // namespace

std::optional<PackageVersion> parse_version(std::string_view text) {
  PackageVersion v;
  auto plus = text.find('+');
  if (plus != std::string_view::npos) {
    v.local = std::string(text.substr(plus + 1));
    text = text.substr(0, plus);
  }
  if (!text.empty() && (text.front() == 'v' || text.front() == 'V')) text.remove_prefix(1);
  long n = 0;
  if (!read_number(text, n)) return std::nullopt;
  v.release.push_back(n);
  while (text.size() >= 2 && text.front() == '.' && std::isdigit(static_cast<unsigned char>(text[1]))) {
    text.remove_prefix(1);
    read_number(text, n);
    v.release.push_back(n);
  }
  v.phase = kPhaseFinal;
  if (!text.empty() && (text.front() == '.' || text.front() == '-' || text.front() == '_')) text.remove_prefix(1);
  if (text.empty()) return v;
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const auto& p : kPhaseNames) {
    if (lower.rfind(p.text, 0) == 0) {
      v.phase = p.phase;
      std::string_view rest = std::string_view(lower).substr(p.text.size());
      if (!rest.empty() && (rest.front() == '.' || rest.front() == '-' || rest.front() == '_')) rest.remove_prefix(1);
      long num = 0;
      if (read_number(rest, num)) v.phase_number = num;
      return v;
    }
  }
  return v;  // unknown suffix: ordered as the plain release
}

std::optional<int> compare_versions(std::string_view a, std::string_view b) {
  auto va = parse_version(a);
  auto vb = parse_version(b);
  if (!va || !vb) return std::nullopt;
  size_t n = std::max(va->release.size(), vb->release.size());
  for (size_t i = 0; i < n; ++i) {
    long x = i < va->release.size() ? va->release[i] : 0;  // 0.5 == 0.5.0
    long y = i < vb->release.size() ? vb->release[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  if (va->phase != vb->phase) return va->phase < vb->phase ? -1 : 1;
  if (va->phase_number != vb->phase_number) return va->phase_number < vb->phase_number ? -1 : 1;
  return 0;
}

}  // namespace cktune::discover
