#include "cktune/engine/name_filter.hpp"

#include <re2/re2.h>

#include <fmt/format.h>

#include "cktune/core/error.hpp"

namespace cktune {

NameFilter::NameFilter(const std::string& pattern, const char* option) {
  if (pattern.empty()) return;
  RE2::Options opt;
  opt.set_log_errors(false);
  re_ = std::make_unique<RE2>(pattern, opt);
  if (!re_->ok())
    throw Error(fmt::format("{} '{}' is not a valid regular expression: {}", option, pattern, re_->error()),
                fmt::format("use RE2 syntax, e.g. {} 'mma_.*sk8' (a plain fragment also works)", option));
}

NameFilter::~NameFilter() = default;
NameFilter::NameFilter(NameFilter&&) noexcept = default;
NameFilter& NameFilter::operator=(NameFilter&&) noexcept = default;

bool NameFilter::matches(const std::string& name) const { return !re_ || RE2::PartialMatch(name, *re_); }

}  // namespace cktune
