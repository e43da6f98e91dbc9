// libFuzzer target: the capture log scanner (cktune/capture/log_scan.hpp).
//
// The input is a log. It is scanned twice: whole (scan_text), and through one LogScanner fed in pieces
// cut at line breaks chosen from the input's own bytes, the way scan_input feeds it chunks. Besides
// crashes and sanitizer reports, the target checks that the two scans agree: a record must count the
// same whether or not a chunk boundary falls next to it.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "cktune/capture/log_scan.hpp"
#include "cktune/core/error.hpp"

namespace {

using cktune::capture::Observations;

// Everything a scan reports, as text, so that two scans can be compared in one go.
std::string summary(const Observations& obs) {
  std::string out;
  for (size_t f = 0; f < obs.families.size(); ++f) {
    std::vector<std::string> lines;
    for (const auto& [key, seen] : obs.families[f].keys) {
      std::string line = std::to_string(f) + "|" + key + "|";
      for (const auto& [size, n] : seen.sizes.sorted()) line += std::to_string(size) + "x" + std::to_string(n) + ";";
      for (const auto& [device, n] : seen.devices)
        line += device.first + "/" + std::to_string(device.second) + "x" + std::to_string(n) + ";";
      lines.push_back(std::move(line));
    }
    std::sort(lines.begin(), lines.end());
    for (const auto& l : lines) out += l + "\n";
  }
  const auto& ig = obs.ignored;
  out += "ignored " + std::to_string(ig.found) + " " + std::to_string(ig.tuned_moe) + " " +
         std::to_string(ig.unknown_file) + " " + std::to_string(ig.malformed) + " " + std::to_string(ig.truncated) + "\n";
  // Warnings are compared as a set: the scanner makes one pass per record kind over each piece it is
  // given, so their order follows the chunking. Which malformed lines are quoted also depends on that
  // order once more than the scanner's cap (5) are malformed; then those quotes are left out.
  std::vector<std::string> warnings;
  for (const auto& w : obs.warnings)
    if (ig.malformed <= 5 || w.rfind("ignored a ", 0) != 0) warnings.push_back(w);
  std::sort(warnings.begin(), warnings.end());
  for (const auto& w : warnings) out += "warning " + w + "\n";
  for (const auto& u : obs.unknown_files) out += "unknown " + u + "\n";
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const Observations whole = cktune::capture::scan_text(text);

    // Chunked: each line break is a cut point when the byte after it is odd (a cheap, input-driven
    // choice, so libFuzzer can explore the cuts too). Every piece but the last ends at a line break.
    cktune::capture::LogScanner scanner;
    size_t start = 0;
    for (size_t i = 0; i < size; ++i) {
      if (text[i] == '\n' && (i + 1 == size || (static_cast<unsigned char>(text[i + 1]) & 1) != 0)) {
        scanner.scan(text.substr(start, i + 1 - start), true);
        start = i + 1;
      }
    }
    if (start < size) scanner.scan(text.substr(start), false);
    const std::string a = summary(whole);
    const std::string b = summary(scanner.observations());
    if (a != b) {
      std::fprintf(stderr, "fuzz_capture: whole and chunked scans differ\n--- whole\n%s--- chunked\n%s", a.c_str(),
                   b.c_str());
      std::abort();
    }
  } catch (const cktune::Error&) {
    // Expected outcome for bad input.
  }
  return 0;
}
