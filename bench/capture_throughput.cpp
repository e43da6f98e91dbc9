// capture_throughput: how fast `cktune capture` reads logs, on one thread.
//
// Builds a large log in memory by replicating the lines of the fixture server log (every record form:
// sglang/vLLM prefixes, ANSI codes, progress bars, found/tuned lines, LOG_MORE pairs) with the M of each
// GEMM record varied, then runs the capture scanner over it several times and prints the median rate.
// Results and the command line go to docs/perf/capture.md.
//
//   capture_throughput [--size-mb 512] [--reps 5] [--log tests/data/logs/server_mixed.log] [--write FILE]
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cktune/capture/log_scan.hpp"

namespace {

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Replace the digits after `tag` in `line` with `value` (no-op when the tag is absent).
void set_number_after(std::string& line, std::string_view tag, std::uint64_t value) {
  size_t at = line.find(tag);
  if (at == std::string::npos) return;
  size_t start = at + tag.size(), end = start;
  while (end < line.size() && line[end] >= '0' && line[end] <= '9') ++end;
  if (end > start) line.replace(start, end - start, std::to_string(value));
}

std::string build_log(const std::string& fixture, size_t target_bytes) {
  std::vector<std::string> lines;
  std::istringstream in(fixture);
  for (std::string line; std::getline(in, line);) lines.push_back(line + "\n");
  if (!fixture.empty() && fixture.back() != '\n') lines.pop_back();  // the fixture's truncated last line
  std::string out;
  out.reserve(target_bytes + 4096);
  std::uint64_t state = 0x9e3779b97f4a7c15ull;  // xorshift: reproducible "random" M values
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  size_t i = 0;
  while (out.size() < target_bytes) {
    // Keep two-line LOG_MORE records together: walk the fixture in order, vary only the numbers.
    std::string line = lines[i];
    i = (i + 1) % lines.size();
    const std::uint64_t m = 1 + next() % 8192;
    set_number_after(line, "shape is M:", m);
    set_number_after(line, "csv_row: ", m);
    out += line;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  size_t size_mb = 512;
  int reps = 5;
  std::string log_path = std::string(CKTUNE_SOURCE_DIR) + "/tests/data/logs/server_mixed.log";
  std::string write_path;
  for (int a = 1; a < argc; ++a) {
    std::string_view arg = argv[a];
    auto value = [&]() -> std::string {
      if (a + 1 >= argc) {
        std::fprintf(stderr, "capture_throughput: %s needs a value\n", argv[a]);
        std::exit(2);
      }
      return argv[++a];
    };
    if (arg == "--size-mb") size_mb = std::stoul(value());
    else if (arg == "--reps") reps = std::max(1, std::stoi(value()));
    else if (arg == "--log") log_path = value();
    else if (arg == "--write") write_path = value();
    else {
      std::fprintf(stderr, "usage: capture_throughput [--size-mb N] [--reps N] [--log FILE] [--write FILE]\n");
      return 2;
    }
  }
  std::ifstream in(log_path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "capture_throughput: cannot read %s\n", log_path.c_str());
    return 1;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = build_log(ss.str(), size_mb << 20);
  if (!write_path.empty()) {
    std::ofstream(write_path, std::ios::binary) << text;
    std::printf("wrote %s (%zu bytes)\n", write_path.c_str(), text.size());
  }

  std::vector<double> wall_rates, cpu_rates;
  std::uint64_t records = 0;
  for (int r = 0; r < reps; ++r) {
    cktune::capture::LogScanner scanner;
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = thread_cpu_seconds();
    scanner.scan(text, true);
    const double cpu = thread_cpu_seconds() - c0;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    records = scanner.observations().records();
    const double mb = static_cast<double>(text.size()) / 1e6;
    wall_rates.push_back(mb / wall);
    cpu_rates.push_back(mb / cpu);
    std::printf("rep %d: %.1f MB/s wall, %.1f MB/s cpu\n", r + 1, mb / wall, mb / cpu);
  }
  std::printf("log %.1f MB, %llu records counted, %d reps, one thread\n", static_cast<double>(text.size()) / 1e6,
              static_cast<unsigned long long>(records), reps);
  std::printf("median: %.1f MB/s wall, %.1f MB/s thread-cpu\n", median(wall_rates), median(cpu_rates));
  return 0;
}
