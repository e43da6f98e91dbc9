#include "cktune/engine/result_rows.hpp"

#include <chrono>
#include <limits>

#include <fmt/format.h>

#include "cktune/formats/cells.hpp"

namespace cktune {

ResultRow result_row(const ProblemKey& key, const DeviceInfo& device, const CandidateResult& r, ResultRole role,
                     ResultSource source, const Protocol& protocol, std::uint64_t seed) {
  ResultRow row;
  row.gfx = device.gfx;
  row.cu_num = device.cu_num;
  row.key = key;
  row.role = role;
  row.source = source;
  row.backend = device.backend;
  row.libtype = std::string(to_string(r.provider));
  row.kernel_id = r.id;
  row.kernel_name = r.name;
  row.split_k = r.split_k;
  bool ok = r.verdict == Verdict::Passed;
  row.us = ok ? r.time.median_us : (r.verdict == Verdict::TimedOut ? std::numeric_limits<double>::infinity() : -1.0);
  row.us_min = ok ? r.time.min_us : -1;
  row.us_p10 = ok ? r.time.p10_us : -1;
  row.us_p90 = ok ? r.time.p90_us : -1;
  if (ok && r.time.median_us > 0) {
    row.tflops = key.flops() / (r.time.median_us * 1e6);
    row.bw = key.min_bytes_or(r.min_bytes) / (r.time.median_us * 1e-6) / 1e9;
  }
  row.err_ratio = r.check.err_ratio;
  row.verdict = r.verdict;
  row.reason = r.reason;
  row.device = device.name;
  row.uuid = device.uuid;
  row.protocol = protocol.describe(r.time.sets);
  row.seed = seed;
  row.timestamp = format_timestamp(std::chrono::system_clock::now());
  row.version = CKTUNE_VERSION;
  for (size_t i = 0; i < r.part_us.size() && i < r.part_names.size(); ++i)
    row.parts += fmt::format("{}{}={}", i ? ";" : "", r.part_names[i], format_us(r.part_us[i]));
  return row;
}

}  // namespace cktune
