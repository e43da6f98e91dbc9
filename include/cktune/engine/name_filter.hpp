#pragma once
// Instance-name filters (--kernels, --exclude-kernels): a regular expression (RE2 syntax, partial match), so
// users can write "mma_.*_sk(4|8)$" or just a fragment like "wgmma".
#include <memory>
#include <string>

namespace re2 {
class RE2;
}

namespace cktune {

class NameFilter {
 public:
  NameFilter() = default;
  // Error naming the option and the pattern when it does not compile.
  explicit NameFilter(const std::string& pattern, const char* option = "--kernels");
  ~NameFilter();
  NameFilter(NameFilter&&) noexcept;
  NameFilter& operator=(NameFilter&&) noexcept;
  bool matches(const std::string& name) const;  // true when there is no pattern
  bool empty() const { return re_ == nullptr; }

 private:
  std::unique_ptr<re2::RE2> re_;
};

}  // namespace cktune
