#include "bench/bench.hpp"

#include <chrono>
#include <deque>
#include <map>
#include <set>

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/core/io.hpp"
#include "cktune/core/log.hpp"
#include "cktune/formats/lookup.hpp"
#include "cktune/results/results.hpp"
#include "cktune/tune/pool.hpp"
#include "cktune/tune/registry.hpp"
#include "cktune/tune/state.hpp"
#include "cktune/tune/tuner.hpp"
#include "cktune/verify/verdict.hpp"

namespace cktune {

namespace {

// The row the runtime would find for `key`: exact size first, then AITER's padded sizes.
std::string dispatch_kernel(const TunedTable& table, const DeviceInfo& dev, const ProblemKey& key) {
  std::vector<long> sizes;
  long n = key.size();
  if (spec(key.family).is_moe) {
    sizes = {n, static_cast<long>(moe_token_key(n))};
  } else {
    sizes = {n, static_cast<long>(gemm_padded_m(n)), static_cast<long>(gemm_padded_m_pow2(n))};
  }
  const auto& cols = spec(key.family).untuned;
  size_t size_idx = 0;
  for (size_t i = 0; i < cols.size(); ++i)
    if (cols[i] == spec(key.family).size_column) size_idx = i;
  for (long s : sizes) {
    ProblemKey k = key;
    k.cells[size_idx] = std::to_string(s);
    std::string name = table.kernel_for(dev.gfx, dev.cu_num, k);
    if (!name.empty()) return name;
  }
  return {};
}

}  // namespace

BenchSummary run_bench(const BenchOptions& o) {
  BenchSummary sum;
  std::optional<Family> family = o.family;
  std::vector<ProblemKey> keys = load_problems(o.input, family);
  const Family fam = *family;
  sum.shapes = static_cast<int>(keys.size());
  // A bad --tag is refused before anything is timed or written, not after the whole run.
  if (!o.log_dir.empty())
    (void)bench_log_path(o.log_dir, fam, o.tag.empty() ? "run" : o.tag, std::chrono::system_clock::now());

  std::optional<TunedTable> table;
  if (!o.config.empty()) {
    if (!file_exists(o.config)) throw Error(fmt::format("--config {}: no such file", o.config));
    table = TunedTable::open(o.config, fam);
  }

  PoolOptions popt;
  popt.exe = o.exe;
  popt.candidate_timeout_s = o.timeout_s;
  for (int i = 0; i < o.verbosity; ++i) popt.worker_args.push_back("-v");
  std::vector<WorkerSpec> specs;
  for (int i = 0; i < std::max(1, o.mp); ++i) specs.push_back({o.device, o.device == "gpu" ? i : i});
  WorkerPool pool(specs, popt);
  const DeviceInfo dev = pool.start().front();
  const std::string timer_name = dev.backend == "gpu" ? "events" : "steady_clock";

  if (table) {
    if (auto origin = read_table_origin(o.config); origin && (origin->gfx != dev.gfx || origin->cu_num != dev.cu_num))
      log().warn("{} was tuned on {} ({}, cu_num {}); this device is {} ({}, cu_num {}): its rows will not match here",
                 o.config, origin->device, origin->gfx, origin->cu_num, dev.name, dev.gfx, dev.cu_num);
    auto gfx_col = table->csv().column("gfx");
    auto cu_col = table->csv().column("cu_num");
    size_t other = 0;
    for (const auto& row : table->csv().rows)
      if (row[*gfx_col] != dev.gfx || canonical_cell("cu_num", row[*cu_col]) != std::to_string(dev.cu_num)) ++other;
    if (other > 0)
      log().warn("{}: {} of {} rows are for another gfx/cu_num than this device ({}, {}) and cannot be used here",
                 o.config, other, table->csv().rows.size(), dev.gfx, dev.cu_num);
  }

  std::vector<std::string> all_names;
  if (o.all_candidates)
    for (const auto& d : list_instances(o.device, fam)) all_names.push_back(d.name);

  std::deque<Job> jobs;
  std::map<int, ResultSource> source_of;
  std::map<int, std::string> table_kernel;
  const double err_limit = o.err_ratio >= 0 ? o.err_ratio : (spec(fam).is_moe ? 0.1 : 0.05);
  for (size_t i = 0; i < keys.size(); ++i) {
    Job j;
    j.id = static_cast<int>(i);
    j.key = keys[i];
    j.seed = o.protocol.seed;
    j.protocol = o.protocol;
    j.protocol.timer = timer_name;
    j.tolerance.max_err_ratio = err_limit;
    j.retime_rounds = 0;  // bench reports, it does not choose
    j.screen_factor = 0;  // and times every kernel it names with the full protocol
    std::string tuned = table ? dispatch_kernel(*table, dev, keys[i]) : std::string();
    if (!tuned.empty()) {
      j.candidates.push_back(tuned);
      source_of[j.id] = ResultSource::Tuned;
      table_kernel[j.id] = tuned;
      ++sum.dispatch_tuned;
    } else {
      j.candidates.push_back(std::string(kDefaultAlias));
      source_of[j.id] = ResultSource::Default;
      ++sum.dispatch_default;
    }
    if (o.baseline) j.candidates.push_back(std::string(kBaselineAlias));
    for (const auto& n : all_names) j.candidates.push_back(n);
    jobs.push_back(std::move(j));
  }

  std::optional<ResultsWriter> writer;
  if (!o.output.empty()) writer.emplace(o.output, fam, /*resume=*/false);
  std::vector<ResultRow> all_rows;
  PoolCallbacks cb;
  cb.on_job_done = [&](const JobOutcome& out) {
    std::vector<ResultRow> rows;
    if (!out.failure.empty()) {
      ++sum.failed;
      log().error("{}: {}", out.job.key.to_string(), out.failure);
    }
    for (size_t c = 0; c < out.results.size(); ++c) {
      const CandidateResult& r = out.results[c];
      ResultRole role = c == 0 ? ResultRole::Dispatch
                                : (r.alias == kBaselineAlias ? ResultRole::Baseline : ResultRole::Candidate);
      ResultSource src = role == ResultRole::Dispatch ? source_of[out.job.id] : ResultSource::None;
      CandidateResult shown = r;
      if (role == ResultRole::Dispatch && src == ResultSource::Tuned && r.verdict == Verdict::NotSupported &&
          r.reason.find("no instance named") != std::string::npos) {
        shown.reason = fmt::format("the table's kernel '{}' is not a cktune instance on this backend", r.name);
        ++sum.not_runnable;
      }
      if (role == ResultRole::Baseline && r.verdict == Verdict::NotSupported) continue;  // no vendor library here
      rows.push_back(result_row(out.job.key, out.device, shown, role, src, out.job.protocol, out.job.seed));
    }
    if (writer) writer->add(rows);
    all_rows.insert(all_rows.end(), rows.begin(), rows.end());
  };
  pool.run(std::move(jobs), cb);

  if (!o.log_dir.empty()) {
    std::string tag = o.tag.empty() ? "run" : o.tag;
    sum.log_file = bench_log_path(o.log_dir, fam, tag, std::chrono::system_clock::now());
    write_file_atomic(sum.log_file, render_results_text(all_rows));
  }
  sum.output = o.output;
  fmt::print("{}", render_results_text(all_rows));
  return sum;
}

}  // namespace cktune
