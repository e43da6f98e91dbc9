#pragma once
// Reading server logs: the AITER / sglang lines that name a GEMM or fused-MoE shape the runtime had no
// tuned entry for (aiter-formats.md §4), counted per family, key and size (M or token).
//
// The scanner is built for throughput: each record kind has one fixed marker ("shape is ",
// "[fused_moe] using ", "csv_row:") that memmem finds; only the few bytes after a hit are parsed by hand.
// Text before the marker (timestamps, rank prefixes, ANSI colour codes, progress-bar junk ending in '\r')
// is never looked at, which is what makes odd prefixes harmless. docs/arch/capture.md has the rules.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cktune/formats/family.hpp"

namespace cktune::capture {

// Size (M or token) -> number of log lines. Open addressing with linear probing in one flat array:
// prefill Ms take thousands of values per key, and node-based maps (one cache miss per node) made this
// lookup a third of the whole scan.
class SizeCounts {
 public:
  void add(std::int64_t size, std::uint64_t n = 1);
  std::uint64_t count(std::int64_t size) const;  // 0 when never seen
  size_t distinct() const { return used_; }
  std::uint64_t total() const;
  std::vector<std::pair<std::int64_t, std::uint64_t>> sorted() const;  // ascending size

 private:
  struct Slot {
    std::int64_t size = 0;  // 0 = empty: sizes are positive
    std::uint64_t count = 0;
  };
  size_t slot_of(std::int64_t size) const;
  void grow();

  std::vector<Slot> slots_;
  size_t used_ = 0;
  int shift_ = 64;
};

// What the log said about one key (the family's untuned key columns other than M/token).
struct KeyObservations {
  SizeCounts sizes;  // observed M (or token) -> number of log lines
  // fused_moe only: (gfx, cu_num) -> lines. gfx is empty for the old tuple form, which has no gfx.
  std::map<std::pair<std::string, std::int64_t>, std::uint64_t> devices;
  std::uint64_t lines() const { return sizes.total(); }
};

struct TransparentHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

struct FamilyObservations {
  // key text: the key cells comma-joined in AITER column order, booleans as 1/0 ("2112,7168").
  std::unordered_map<std::string, KeyObservations, TransparentHash, std::equal_to<>> keys;
  std::uint64_t lines() const;
};

// Counts of lines that looked like records but were (rightly) not counted.
struct IgnoredCounts {
  std::uint64_t found = 0;         // "found padded_M ... is tuned": a tuned GEMM hit
  std::uint64_t tuned_moe = 0;     // "[fused_moe] using 2stage (kernelName1=...)": a tuned MoE hit
  std::uint64_t unknown_file = 0;  // "not found tuned config in X" where X names no known family
  std::uint64_t malformed = 0;     // marker found but the fields do not parse
  std::uint64_t truncated = 0;     // record cut off by the end of the input
  std::uint64_t long_lines = 0;    // lines longer than the line limit, skipped unread (scan_input)
  std::uint64_t bad_cu_num = 0;    // [fused_moe] records with a cu_num <= 0, ignored with a warning
};

struct Observations {
  std::array<FamilyObservations, std::size(kAllFamilies)> families;
  IgnoredCounts ignored;
  std::vector<std::string> warnings;      // each said once
  std::vector<std::string> unknown_files;  // tuned-file names with no family, in order of appearance

  FamilyObservations& of(Family f) { return families[static_cast<size_t>(f)]; }
  const FamilyObservations& of(Family f) const { return families[static_cast<size_t>(f)]; }
  std::uint64_t records() const;
};

struct ScanOptions {
  // Family the sglang `[GEMM_shape_dump] ... csv_row:` lines count under (they name no tuned file).
  Family dump_family = Family::A8W8Blockscale;
};

// Incremental scanner: feed it text in pieces that end at a line break, then the unterminated rest.
class LogScanner {
 public:
  explicit LogScanner(ScanOptions options = {});

  // `text` holds whole lines; when `terminated` is false its last line had no line break (end of
  // input), so a record cut short there is counted as truncated instead of being read.
  void scan(std::string_view text, bool terminated = true);

  const Observations& observations() const { return obs_; }
  Observations take() { return std::move(obs_); }

  // Record a warning for the summary, once per distinct text.
  void warn_once(std::string message);

  // Count a line that scan_input left out for being longer than its limit.
  void skip_long_line() { ++obs_.ignored.long_lines; }

 private:
  void scan_block(std::string_view text, bool terminated);
  void scan_gemm(std::string_view text, bool terminated);
  void scan_moe(std::string_view text, bool terminated);
  void scan_dump(std::string_view text, bool terminated);
  void count(Family f, std::string_view key, std::int64_t size);
  std::optional<Family> family_of_file(std::string_view file);
  void malformed(std::string_view what, std::string_view record);

  ScanOptions options_;
  Observations obs_;
  std::string key_;  // reused buffer for key text: no allocation per record
  std::vector<std::pair<std::string, std::optional<Family>>> file_cache_;  // few distinct paths per log
  std::uint64_t malformed_warnings_ = 0;
};

// Convenience: scan a whole text (its last line may be unterminated).
Observations scan_text(std::string_view text, ScanOptions options = {});

struct ScanInputOptions {
  // Lines longer than this are skipped, counted in IgnoredCounts::long_lines and warned about once per
  // input, so that memory stays bounded whatever the input holds (a .gz of one 1 GB line takes one 8 MiB
  // buffer). 0: default_max_line_bytes() (1 MiB, or CKTUNE_MAX_LINE_BYTES).
  std::uint64_t max_line_bytes = 0;
};

// Stream one input ("-" = stdin, gzip detected by magic) through `scanner` in chunks (core/io InputStream:
// devices refused, a .gz cut short is an error naming the file and byte offset).
// Returns the number of bytes read (after decompression). Throws cktune::Error if it cannot be read.
std::uint64_t scan_input(const std::string& path, LogScanner& scanner, const ScanInputOptions& options = {});

}  // namespace cktune::capture
