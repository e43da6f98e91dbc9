#include "cktune/capture/log_scan.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/core/io.hpp"

namespace cktune::capture {

namespace {

constexpr std::string_view kGemmMarker = "shape is ";
constexpr std::string_view kMoeMarker = "[fused_moe] using ";
constexpr std::string_view kDumpMarker = "csv_row:";
constexpr std::string_view kDumpTag = "[GEMM_shape_dump]";
constexpr std::string_view kBatchedFile = "CKGEMM";  // batched GEMMs name the library, not a file
constexpr size_t kMaxMalformedWarnings = 5;

// First occurrence of `needle` (at least 4 bytes) in [p, e). glibc's memmem builds a shift table on every
// call, which costs more than the search itself when hits are ~100 bytes apart. This tests 16 start
// positions at a time (SSE2, part of every x86-64) for the needle's first three bytes and its last one,
// which log text almost never matches by chance, and memcmp's only the survivors.
const char* find(const char* p, const char* e, std::string_view needle) {
  const size_t n = needle.size();
  if (p >= e || static_cast<size_t>(e - p) < n) return nullptr;
  const char* last_start = e - n;  // last position where the needle fits
#if defined(__SSE2__)
  const __m128i c0 = _mm_set1_epi8(needle[0]);
  const __m128i c1 = _mm_set1_epi8(needle[1]);
  const __m128i c2 = _mm_set1_epi8(needle[2]);
  const __m128i cl = _mm_set1_epi8(needle[n - 1]);
  auto load = [](const char* q) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(q)); };
  while (p + 16 <= last_start + 1) {
    const __m128i m = _mm_and_si128(_mm_and_si128(_mm_cmpeq_epi8(load(p), c0), _mm_cmpeq_epi8(load(p + 1), c1)),
                                    _mm_and_si128(_mm_cmpeq_epi8(load(p + 2), c2), _mm_cmpeq_epi8(load(p + n - 1), cl)));
    unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(m));
    while (mask != 0) {
      const int bit = __builtin_ctz(mask);
      if (std::memcmp(p + bit + 3, needle.data() + 3, n - 4) == 0) return p + bit;
      mask &= mask - 1;
    }
    p += 16;
  }
#endif
  for (; p <= last_start; ++p)
    if (*p == needle.front() && std::memcmp(p, needle.data(), n) == 0) return p;
  return nullptr;
}

// End of the physical record: '\n', or '\r' (CRLF endings and progress bars that redraw with '\r').
const char* end_of_record(const char* p, const char* e) {
  const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(e - p)));
  const char* stop = nl ? nl : e;
  const char* cr = static_cast<const char*>(std::memchr(p, '\r', static_cast<size_t>(stop - p)));
  return cr ? cr : stop;
}

// Start of the record that holds `p`: just after the previous '\n' or '\r'.
const char* start_of_record(const char* begin, const char* p) {
  while (p > begin && p[-1] != '\n' && p[-1] != '\r') --p;
  return p;
}

// A hand-written cursor: the handful of fixed tokens in these lines does not need a regex engine.
struct Cursor {
  const char* p;
  const char* e;

  bool done() const { return p >= e; }
  bool eat(std::string_view s) {
    if (static_cast<size_t>(e - p) < s.size() || std::memcmp(p, s.data(), s.size()) != 0) return false;
    p += s.size();
    return true;
  }
  bool number(std::int64_t& v) {
    auto [next, ec] = std::from_chars(p, e, v);
    if (ec != std::errc() || next == p) return false;
    p = next;
    return true;
  }
  // Text up to (not including) `stop` or the end.
  std::string_view until(char stop) {
    const char* s = p;
    while (p < e && *p != stop) ++p;
    return {s, static_cast<size_t>(p - s)};
  }
  void skip_spaces() {
    while (p < e && (*p == ' ' || *p == '\t')) ++p;
  }
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool parse_int(std::string_view s, std::int64_t& v) {
  auto [next, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && next == s.data() + s.size() && !s.empty();
}

// Python's True/False (and 1/0 from older prints) as AITER's CSV cell.
std::optional<char> parse_bool(std::string_view s) {
  if (s == "True" || s == "true" || s == "1") return '1';
  if (s == "False" || s == "false" || s == "0") return '0';
  return std::nullopt;
}

void append_number(std::string& out, std::int64_t v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  out.append(buf, static_cast<size_t>(end - buf));
}

std::string snippet(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 160)) out.push_back(static_cast<unsigned char>(c) < 0x20 ? '?' : c);
  if (s.size() > 160) out += "...";
  return out;
}

// One element of a Python tuple repr, canonicalised the way AITER's CSV spells it:
// 'torch.bfloat16' -> torch.bfloat16, <ActivationType.Silu: 0> -> ActivationType.Silu.
// Returns false when the tuple is not closed before `e`.
bool next_tuple_element(Cursor& c, std::string_view& element, bool& last) {
  c.skip_spaces();
  if (c.done()) return false;
  if (*c.p == '\'' || *c.p == '"') {
    char quote = *c.p++;
    element = c.until(quote);
    if (c.done()) return false;
    ++c.p;
  } else if (*c.p == '<') {
    ++c.p;
    std::string_view inner = c.until('>');
    if (c.done()) return false;
    ++c.p;
    element = trim(inner.substr(0, inner.find(':')));
  } else {
    const char* s = c.p;
    while (!c.done() && *c.p != ',' && *c.p != ')') ++c.p;
    element = trim(std::string_view(s, static_cast<size_t>(c.p - s)));
  }
  c.skip_spaces();
  if (c.done()) return false;
  if (*c.p == ',') {
    ++c.p;
    last = false;
    return true;
  }
  if (*c.p == ')') {
    ++c.p;
    last = true;
    return true;
  }
  return false;
}

}  // namespace

size_t SizeCounts::slot_of(std::int64_t size) const {
  // Fibonacci hashing: the top bits of size * 2^64/phi spread consecutive sizes over the table.
  return static_cast<size_t>((static_cast<std::uint64_t>(size) * 0x9E3779B97F4A7C15ull) >> shift_);
}

void SizeCounts::grow() {
  std::vector<Slot> old = std::move(slots_);
  const size_t capacity = old.empty() ? 16 : old.size() * 2;
  slots_.assign(capacity, Slot{});
  shift_ = 64 - std::countr_zero(capacity);
  used_ = 0;
  for (const Slot& s : old)
    if (s.size != 0) add(s.size, s.count);
}

void SizeCounts::add(std::int64_t size, std::uint64_t n) {
  if ((used_ + 1) * 2 > slots_.size()) grow();  // load factor <= 1/2 keeps probes short
  const size_t mask = slots_.size() - 1;
  for (size_t i = slot_of(size);; i = (i + 1) & mask) {
    Slot& s = slots_[i];
    if (s.size == size) {
      s.count += n;
      return;
    }
    if (s.size == 0) {
      s = {size, n};
      ++used_;
      return;
    }
  }
}

std::uint64_t SizeCounts::count(std::int64_t size) const {
  if (slots_.empty()) return 0;
  const size_t mask = slots_.size() - 1;
  for (size_t i = slot_of(size);; i = (i + 1) & mask) {
    if (slots_[i].size == size) return slots_[i].count;
    if (slots_[i].size == 0) return 0;
  }
}

std::uint64_t SizeCounts::total() const {
  std::uint64_t n = 0;
  for (const Slot& s : slots_) n += s.count;
  return n;
}

std::vector<std::pair<std::int64_t, std::uint64_t>> SizeCounts::sorted() const {
  std::vector<std::pair<std::int64_t, std::uint64_t>> out;
  out.reserve(used_);
  for (const Slot& s : slots_)
    if (s.size != 0) out.emplace_back(s.size, s.count);
  std::sort(out.begin(), out.end());
  return out;
}

std::uint64_t FamilyObservations::lines() const {
  std::uint64_t n = 0;
  for (const auto& [key, obs] : keys) n += obs.lines();
  return n;
}

std::uint64_t Observations::records() const {
  std::uint64_t n = 0;
  for (const auto& f : families) n += f.lines();
  return n;
}

LogScanner::LogScanner(ScanOptions options) : options_(options) {}

void LogScanner::scan(std::string_view text, bool terminated) {
  // The three passes run over L2-sized blocks (cut after a line break) so that the log is read from
  // memory once, not three times.
  constexpr size_t kBlock = size_t{256} << 10;
  while (text.size() > kBlock) {
    const void* nl = ::memrchr(text.data(), '\n', kBlock);
    const size_t cut = nl ? static_cast<size_t>(static_cast<const char*>(nl) - text.data()) + 1 : 0;
    if (cut == 0) break;  // one line longer than a block: scan the rest in one go
    scan_block(text.substr(0, cut), true);
    text.remove_prefix(cut);
  }
  scan_block(text, terminated);
}

void LogScanner::scan_block(std::string_view text, bool terminated) {
  scan_gemm(text, terminated);
  scan_moe(text, terminated);
  scan_dump(text, terminated);
}

void LogScanner::warn_once(std::string message) {
  if (std::find(obs_.warnings.begin(), obs_.warnings.end(), message) == obs_.warnings.end())
    obs_.warnings.push_back(std::move(message));
}

void LogScanner::malformed(std::string_view what, std::string_view record) {
  ++obs_.ignored.malformed;
  if (malformed_warnings_++ < kMaxMalformedWarnings)
    warn_once(fmt::format("ignored a {} line that does not parse: {}", what, snippet(record)));
}

void LogScanner::count(Family f, std::string_view key, std::int64_t size) {
  auto& keys = obs_.of(f).keys;
  auto it = keys.find(key);
  if (it == keys.end()) it = keys.emplace(std::string(key), KeyObservations{}).first;
  it->second.sizes.add(size);
}

std::optional<Family> LogScanner::family_of_file(std::string_view file) {
  for (const auto& [name, family] : file_cache_)
    if (name == file) return family;
  auto family = family_from_file_name(file);
  file_cache_.emplace_back(std::string(file), family);
  if (!family) {
    obs_.unknown_files.emplace_back(file);
    warn_once(fmt::format("'not found tuned config' lines name '{}', which is no known family's tuned file; "
                          "they are not counted",
                          file));
  }
  return family;
}

// "shape is [B:b, ]M:m, N:n, K:k[ dtype is bf16][, q_dtype_w:q], not found tuned config in FILE, will use
// default config!" -- and the "found padded_M ..." form, which is a tuned hit and is skipped.
void LogScanner::scan_gemm(std::string_view text, bool terminated) {
  const char* p = text.data();
  const char* e = p + text.size();
  while (const char* hit = find(p, e, kGemmMarker)) {
    const char* rec_end = end_of_record(hit, e);
    const bool cut = rec_end == e && !terminated;
    Cursor c{hit + kGemmMarker.size(), rec_end};
    p = hit + kGemmMarker.size();
    std::string_view record(hit, static_cast<size_t>(rec_end - hit));
    auto bad = [&] {
      if (cut)
        ++obs_.ignored.truncated;
      else
        malformed("GEMM 'shape is'", record);
    };

    std::int64_t b = -1, m = 0, n = 0, k = 0;
    if (c.eat("B:")) {
      if (!c.number(b) || !c.eat(", ")) { bad(); continue; }
    }
    if (!c.eat("M:")) continue;  // some other "shape is ..." message: not ours
    if (!(c.number(m) && c.eat(", N:") && c.number(n) && c.eat(", K:") && c.number(k))) { bad(); continue; }
    const bool bf16 = c.eat(" dtype is bf16") || c.eat(", dtype is bf16");
    std::string_view q_dtype_w;
    if (c.eat(", q_dtype_w:")) q_dtype_w = trim(c.until(','));
    if (c.eat(", found")) {
      ++obs_.ignored.found;
      continue;  // from just after the marker: another record may follow on the same line
    }
    if (!c.eat(", not found tuned config in ")) { bad(); continue; }
    std::string_view file = trim(c.until(','));
    if (!c.eat(", will use default config")) { bad(); continue; }
    // Two messages glued on one line (interleaved writes from several ranks): the next one starts after
    // this record, not after the line.
    c.eat("!");
    p = c.p;

    std::optional<Family> family;
    if (file == kBatchedFile)
      family = bf16 ? Family::BatchedBf16 : Family::BatchedA8W8;
    else
      family = family_of_file(file);
    if (!family) {
      ++obs_.ignored.unknown_file;
      continue;
    }
    // Key text in the family's untuned column order, the size column left out.
    const FamilySpec& s = spec(*family);
    key_.clear();
    bool ok = true;
    for (std::string_view col : s.untuned) {
      if (col == s.size_column) continue;
      if (!key_.empty()) key_.push_back(',');
      if (col == "N") append_number(key_, n);
      else if (col == "K") append_number(key_, k);
      else if (col == "B" && b >= 0) append_number(key_, b);
      else if (col == "q_dtype_w" && !q_dtype_w.empty()) key_.append(q_dtype_w);
      else ok = false;
    }
    if (!ok || m <= 0 || n <= 0 || k <= 0) {
      malformed(fmt::format("{} (missing or bad key field)", s.name), record);
      continue;
    }
    count(*family, key_, m);
  }
}

// "[fused_moe] using <mode> default for (TUPLE) " is an untuned MoE shape; any other mode (a kernel
// name list) is a tuned hit. TUPLE is (gfx, cu_num, token, ...12 key columns...) in current AITER and
// (cu_num, token, ...) with a quoted activation in older releases.
void LogScanner::scan_moe(std::string_view text, bool terminated) {
  const char* p = text.data();
  const char* e = p + text.size();
  std::string_view el[16];
  while (const char* hit = find(p, e, kMoeMarker)) {
    const char* rec_end = end_of_record(hit, e);
    const bool cut = rec_end == e && !terminated;
    std::string_view record(hit, static_cast<size_t>(rec_end - hit));
    p = hit + kMoeMarker.size();
    auto bad = [&] {
      if (cut)
        ++obs_.ignored.truncated;
      else
        malformed("[fused_moe]", record);
    };

    const char* open = static_cast<const char*>(std::memchr(p, '(', static_cast<size_t>(rec_end - p)));
    if (!open) { bad(); continue; }
    std::string_view mode(p, static_cast<size_t>(open - p));
    if (!mode.ends_with(" default for ")) {
      ++obs_.ignored.tuned_moe;
      p = open + 1;  // a record glued after this one on the same line is still found
      continue;
    }
    Cursor c{open + 1, rec_end};
    size_t count_el = 0;
    bool last = false, ok = true;
    while (!last) {
      std::string_view v;
      if (!next_tuple_element(c, v, last) || count_el == std::size(el)) { ok = false; break; }
      el[count_el++] = v;
    }
    if (!ok) { bad(); continue; }
    p = c.p;

    std::string_view gfx;
    size_t first = 0;
    if (count_el == 14) {
      gfx = el[0];
      first = 1;
    } else if (count_el != 13) {
      malformed("[fused_moe] (tuple of neither 13 nor 14 fields)", record);
      continue;
    }
    std::int64_t cu_num = 0, token = 0, dims[4];
    std::optional<char> g1u1 = parse_bool(el[first + 11]), doweight = parse_bool(el[first + 12]);
    bool ints = parse_int(el[first], cu_num) && parse_int(el[first + 1], token);
    for (size_t i = 0; i < 4; ++i) ints = ints && parse_int(el[first + 2 + i], dims[i]) && dims[i] > 0;
    if (!ints || token <= 0 || !g1u1 || !doweight) {
      malformed("[fused_moe] (bad number or flag)", record);
      continue;
    }
    if (cu_num <= 0) {
      // A compute-unit count is positive; a row keyed by cu_num -1 would never match a device.
      if (obs_.ignored.bad_cu_num++ == 0)
        warn_once(fmt::format("ignored [fused_moe] record(s) with a cu_num <= 0 (the first: {})", snippet(record)));
      continue;
    }
    key_.clear();
    for (size_t i = 0; i < 4; ++i) {
      append_number(key_, dims[i]);
      key_.push_back(',');
    }
    for (size_t i = 6; i <= 10; ++i) {
      key_.append(el[first + i]);
      key_.push_back(',');
    }
    key_.push_back(*g1u1);
    key_.push_back(',');
    key_.push_back(*doweight);

    auto& keys = obs_.of(Family::Moe2Stages).keys;
    auto it = keys.find(std::string_view(key_));
    if (it == keys.end()) it = keys.emplace(key_, KeyObservations{}).first;
    it->second.sizes.add(token);
    ++it->second.devices[{std::string(gfx), cu_num}];
  }
}

// sglang's hook: "[GEMM_shape_dump] ... | csv_row: M,N,K,dtype". The line names no tuned file, so it
// counts under options_.dump_family; the dtype is the q_dtype_w of families that key on it.
void LogScanner::scan_dump(std::string_view text, bool terminated) {
  const char* p = text.data();
  const char* e = p + text.size();
  const Family family = options_.dump_family;
  const FamilySpec& s = spec(family);
  while (const char* hit = find(p, e, kDumpMarker)) {
    const char* rec_end = end_of_record(hit, e);
    std::string_view record(hit, static_cast<size_t>(rec_end - hit));
    p = hit + kDumpMarker.size();
    const char* start = start_of_record(text.data(), hit);
    if (!find(start, hit, kDumpTag)) continue;  // someone else's csv_row
    if (rec_end == e && !terminated) {
      // The last cell may be cut anywhere ("torch.float8_e4m3fn|uz", "71|68"): never trust it.
      ++obs_.ignored.truncated;
      continue;
    }
    Cursor c{p, rec_end};
    c.skip_spaces();
    std::int64_t m = 0, n = 0, k = 0;
    if (!(c.number(m) && c.eat(",") && c.number(n) && c.eat(",") && c.number(k))) {
      malformed("[GEMM_shape_dump] csv_row", record);
      continue;
    }
    std::string_view dtype;
    if (c.eat(",")) dtype = trim(c.until(','));
    p = rec_end;
    key_.clear();
    bool ok = m > 0 && n > 0 && k > 0;
    for (std::string_view col : s.untuned) {
      if (col == s.size_column) continue;
      if (!key_.empty()) key_.push_back(',');
      if (col == "N") append_number(key_, n);
      else if (col == "K") append_number(key_, k);
      else if (col == "q_dtype_w" && !dtype.empty()) key_.append(dtype);
      else ok = false;
    }
    if (!ok) {
      malformed(fmt::format("[GEMM_shape_dump] csv_row (as {})", s.name), record);
      continue;
    }
    count(family, key_, m);
  }
}

Observations scan_text(std::string_view text, ScanOptions options) {
  LogScanner scanner(options);
  scanner.scan(text, text.empty() || text.back() == '\n');
  return scanner.take();
}

std::uint64_t scan_input(const std::string& path, LogScanner& scanner, const ScanInputOptions& options) {
  // InputStream reads plain files, .gz files and stdin alike, and fails on a .gz cut short.
  InputStream in(path);
  const std::string& name = in.name();
  const size_t max_line = static_cast<size_t>(options.max_line_bytes ? options.max_line_bytes : default_max_line_bytes());

  // Read in large chunks; scan up to the last line break and carry the rest to the next chunk. Memory stays
  // at one chunk: a line longer than max_line is skipped (counted, warned once), never accumulated.
  const size_t chunk = std::max(size_t{8} << 20, 2 * max_line + 1);
  std::string buf(chunk, '\0');
  size_t have = 0;
  bool skipping = false;  // inside a line already found too long: drop bytes up to its line break
  std::uint64_t long_lines = 0;
  auto note_long_line = [&] {
    ++long_lines;
    scanner.skip_long_line();
  };
  // Scan [text, text + n) (whole lines), leaving out every line longer than max_line. Finding them costs one
  // memrchr per max_line bytes: a window of max_line + 1 bytes with no line break holds a long line.
  auto scan_bounded = [&](const char* text, size_t n) {
    size_t seg = 0, pos = 0;  // seg: start of the not yet scanned run of short lines; pos: a line start
    while (n - pos > max_line) {
      const void* nl = ::memrchr(text + pos, '\n', max_line + 1);
      if (nl) {
        pos = static_cast<size_t>(static_cast<const char*>(nl) - text) + 1;
        continue;
      }
      if (pos > seg) scanner.scan(std::string_view(text + seg, pos - seg), true);
      const void* end = std::memchr(text + pos, '\n', n - pos);
      pos = end ? static_cast<size_t>(static_cast<const char*>(end) - text) + 1 : n;
      seg = pos;
      note_long_line();
    }
    if (n > seg) scanner.scan(std::string_view(text + seg, n - seg), true);
  };
  for (;;) {
    const size_t n = in.read(buf.data() + have, buf.size() - have);
    if (n == 0) break;
    size_t filled = have + n;
    size_t begin = 0;
    if (skipping) {
      const void* nl = std::memchr(buf.data(), '\n', filled);
      if (!nl) {
        have = 0;
        continue;
      }
      begin = static_cast<size_t>(static_cast<const char*>(nl) - buf.data()) + 1;
      skipping = false;
    }
    const void* last_nl = ::memrchr(buf.data() + begin, '\n', filled - begin);
    size_t cut = last_nl ? static_cast<size_t>(static_cast<const char*>(last_nl) - buf.data()) + 1 : begin;
    if (cut > begin) scan_bounded(buf.data() + begin, cut - begin);
    size_t rest = filled - cut;
    if (rest > max_line) {
      // The unfinished last line is already too long: drop it and what follows of it.
      note_long_line();
      skipping = true;
      rest = 0;
    }
    std::memmove(buf.data(), buf.data() + cut, rest);
    have = rest;
  }
  if (have > 0) scanner.scan(std::string_view(buf.data(), have), false);
  if (long_lines > 0)
    scanner.warn_once(fmt::format("{}: {} line(s) longer than {} bytes were skipped (set CKTUNE_MAX_LINE_BYTES to "
                                  "read longer lines)",
                                  name, long_lines, max_line));
  return in.bytes_read();
}

}  // namespace cktune::capture
