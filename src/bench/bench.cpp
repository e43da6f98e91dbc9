#include "bench/bench.hpp"

#include <chrono>
#include <cstdlib>
#include <deque>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cktune/core/error.hpp"
#include "cktune/core/io.hpp"
#include "cktune/core/lock.hpp"
#include "cktune/core/log.hpp"
#include "cktune/discover/gpu_status.hpp"
#include "cktune/engine/options.hpp"
#include "cktune/engine/pool.hpp"
#include "cktune/engine/problems.hpp"
#include "cktune/engine/registry.hpp"
#include "cktune/engine/result_rows.hpp"
#include "cktune/formats/lookup.hpp"
#include "cktune/formats/tuned_table.hpp"
#include "cktune/results/results.hpp"
#include "cktune/verify/verdict.hpp"

namespace cktune {

namespace {

// The tables the runtime would consult, in order (AITER merges a ':'-separated list; the first table
// with the key wins here, as the merged table would hold that key once).
struct Dispatch {
  std::vector<TunedTable> tables;
  std::vector<std::string> paths;
  // The kernel the runtime runs for `key`: exact size first, then AITER's padded sizes; "" = default.
  // *row_size (if given) := the size of the row that matched.
  std::string kernel(const DeviceInfo& dev, const ProblemKey& key, long* row_size = nullptr) const {
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
    for (const auto& table : tables)
      for (long s : sizes) {
        ProblemKey k = key;
        k.cells[size_idx] = std::to_string(s);
        std::string name = table.kernel_for(dev.gfx, dev.cu_num, k);
        if (!name.empty()) {
          if (row_size != nullptr) *row_size = s;
          return name;
        }
      }
    return {};
  }
};

Dispatch open_dispatch(const std::vector<std::string>& paths, Family fam, std::string_view option) {
  Dispatch d;
  for (const auto& p : paths) {
    if (!file_exists(p)) throw Error(fmt::format("{} {}: no such file", option, p));
    d.tables.push_back(TunedTable::open(p, fam));
    d.paths.push_back(p);
  }
  return d;
}

void warn_foreign_rows(const TunedTable& table, const std::string& path, const DeviceInfo& dev) {
  const auto origin = read_table_origin(path);
  if (origin && (origin->gfx != dev.gfx || origin->cu_num != dev.cu_num))
    log().warn("{} was tuned on {} ({}, cu_num {}); this device is {} ({}, cu_num {}): its rows will not match here",
               path, origin->device, origin->gfx, origin->cu_num, dev.name, dev.gfx, dev.cu_num);
  else if (origin && origin->other_board(dev.gfx, dev.cu_num, dev.uuid))
    log().info("{} was tuned on another {} board ({}); this one is {}. Boards of one model can time the same kernels "
               "a few percent apart, enough to change near-tie winners: bench measures what this board runs",
               path, origin->device, fmt::join(origin->uuids, ", "), dev.uuid);
  auto gfx_col = table.csv().column("gfx");
  auto cu_col = table.csv().column("cu_num");
  size_t other = 0;
  for (const auto& row : table.csv().rows)
    if (row[*gfx_col] != dev.gfx || canonical_cell("cu_num", row[*cu_col]) != std::to_string(dev.cu_num)) ++other;
  if (other > 0)
    log().warn("{}: {} of {} rows are for another gfx/cu_num than this device ({}, {}) and cannot be used here", path,
               other, table.csv().rows.size(), dev.gfx, dev.cu_num);
}

// --against: "default", "current" (the tables AITER_CONFIG_* names, else the default) or a table path.
std::vector<std::string> against_tables(const std::string& against, Family fam, std::string& described) {
  if (against == "default") {
    described = "the untuned default";
    return {};
  }
  if (against == "current") {
    const char* env = std::getenv(std::string(spec(fam).env_var).c_str());
    if (env == nullptr || *env == '\0') {
      described = fmt::format("current: {} is not set, so the untuned default", spec(fam).env_var);
      return {};
    }
    std::vector<std::string> out;
    std::string list = env;
    size_t pos = 0;
    while (pos <= list.size()) {
      size_t colon = list.find(':', pos);
      std::string item = list.substr(pos, colon == std::string::npos ? std::string::npos : colon - pos);
      if (!item.empty()) out.push_back(item);
      if (colon == std::string::npos) break;
      pos = colon + 1;
    }
    described = fmt::format("current: {}={}", spec(fam).env_var, list);
    return out;
  }
  described = against;
  return {against};
}

}  // namespace

BenchSummary run_bench(const BenchOptions& o) {
  BenchSummary sum;
  o.measure.validate();
  if (o.interleave_rounds < 1 || o.interleave_rounds > 1000)
    throw Error(fmt::format("--interleave-rounds {} is out of range: it must be from 1 to 1000", o.interleave_rounds));
  std::optional<Family> family = o.family;
  std::vector<ProblemKey> keys = load_problems(o.input, family);
  const Family fam = *family;
  sum.shapes = static_cast<int>(keys.size());
  if (!o.output.empty()) check_output_path(o.output);  // before anything is timed
  // A bad --tag is refused before anything is timed or written, not after the whole run.
  if (!o.log_dir.empty())
    (void)bench_log_path(o.log_dir, fam, o.tag.empty() ? "run" : o.tag, std::chrono::system_clock::now());

  Dispatch after = open_dispatch(o.config.empty() ? std::vector<std::string>{} : std::vector<std::string>{o.config},
                                 fam, "--config");
  std::optional<Dispatch> before;
  if (!o.against.empty()) before = open_dispatch(against_tables(o.against, fam, sum.against), fam, "--against");

  const DeviceChoice choice = choose_devices(o.measure);
  log().info("device: {} ({})", to_string(choice.backend), choice.why);
  sum.device = to_string(choice.backend);
  WorkerPool pool(worker_specs(choice), pool_options(o.measure));
  const std::vector<DeviceInfo> devices = pool.start();
  const DeviceInfo dev = devices.front();
  discover::ClockWatch clocks(devices);  // as in tune: sampled at every tick and finished shape
  const std::string timer_name(timer_name_for(dev));
  for (size_t i = 0; i < after.tables.size(); ++i) warn_foreign_rows(after.tables[i], after.paths[i], dev);
  if (before)
    for (size_t i = 0; i < before->tables.size(); ++i) warn_foreign_rows(before->tables[i], before->paths[i], dev);

  std::vector<std::string> all_names;
  if (o.all_candidates)
    for (const auto& d : list_instances(choice.backend, fam)) all_names.push_back(d.name);

  // Per job: the requested names of the "after" (dispatch) and "before" (against) kernels.
  struct Plan {
    std::string after, before;
    ResultSource after_source = ResultSource::Default, before_source = ResultSource::Default;
  };
  std::map<int, Plan> plans;
  std::deque<Job> jobs;
  // Shapes run in tune's order (run_order: costliest first, the cheapest leading); a job's id is its input row.
  for (size_t i : run_order(keys)) {
    Plan plan;
    long row_size = keys[i].size();
    const std::string tuned = after.kernel(dev, keys[i], &row_size);
    plan.after = tuned.empty() ? std::string(kDefaultAlias) : tuned;
    plan.after_source = tuned.empty() ? ResultSource::Default : ResultSource::Tuned;
    (tuned.empty() ? sum.dispatch_default : sum.dispatch_tuned)++;
    // A GEMM row of another M serves this shape (MoE keys are only ever looked up at the rounded count).
    if (!tuned.empty() && row_size != keys[i].size() && !spec(fam).is_moe) {
      if (sum.dispatch_other_size++ < 3)
        sum.other_size_examples.push_back(fmt::format("M={} ran the row of M={}", keys[i].size(), row_size));
    }
    std::vector<std::string> cands = {plan.after};
    if (before) {
      const std::string was = before->kernel(dev, keys[i]);
      plan.before = was.empty() ? std::string(kDefaultAlias) : was;
      plan.before_source = was.empty() ? ResultSource::Default : ResultSource::Tuned;
      if (plan.before != plan.after) cands.push_back(plan.before);
    }
    if (o.baseline) cands.push_back(std::string(kBaselineAlias));
    for (const auto& n : all_names)
      if (std::find(cands.begin(), cands.end(), n) == cands.end()) cands.push_back(n);
    Job j = make_job(static_cast<int>(i), keys[i], std::move(cands), o.measure, timer_name);
    j.screen_factor = 0;  // bench times every kernel it names with the full protocol
    // Bench reports, it does not choose: no re-timing of near-ties, except that with --against every
    // kernel is re-timed in interleaved rounds (A B C A B C ...), so before and after see the same drift.
    j.retime_rounds = before ? o.interleave_rounds : 0;
    j.retime_tolerance = before ? 1e30 : 0.0;
    plans[j.id] = plan;
    jobs.push_back(std::move(j));
  }

  std::optional<ResultsWriter> writer;
  std::optional<OutputLock> output_lock;
  if (!o.output.empty()) {
    output_lock.emplace(o.output);  // one writer per output
    writer.emplace(o.output, fam, /*resume=*/false);
  }
  std::map<int, std::vector<ResultRow>> rows_by_input;  // the printed table and the log follow the input's order
  PoolCallbacks cb;
  cb.on_tick = [&](const std::vector<WorkerStatus>&) { clocks.sample(); };
  cb.on_job_done = [&](const JobOutcome& out) {
    clocks.sample();
    std::vector<ResultRow> rows;
    if (!out.failure.empty()) {
      ++sum.failed;
      log().error("{}: {}", out.job.key.to_string(), out.failure);
    }
    const Plan& plan = plans.at(out.job.id);
    auto find = [&](const std::string& requested) -> const CandidateResult* {
      for (const auto& r : out.results)
        if ((r.alias.empty() ? r.name : r.alias) == requested) return &r;
      return nullptr;
    };
    auto add = [&](const CandidateResult& r, ResultRole role, ResultSource src) {
      CandidateResult shown = r;
      if (src == ResultSource::Tuned && r.unknown_instance) {
        shown.reason = fmt::format("the table's kernel '{}' is not a cktune instance on this backend", r.name);
        if (role == ResultRole::Dispatch) ++sum.not_runnable;
      }
      rows.push_back(result_row(out.job.key, out.device, shown, role, src, out.job.protocol, out.job.seed));
    };
    std::set<std::string> used;
    if (const auto* r = find(plan.after)) add(*r, ResultRole::Dispatch, plan.after_source);
    used.insert(plan.after);
    if (before) {
      if (const auto* r = find(plan.before)) add(*r, ResultRole::Against, plan.before_source);
      used.insert(plan.before);
    }
    if (const auto* r = find(std::string(kBaselineAlias)); r && r->verdict != Verdict::NotSupported)
      add(*r, ResultRole::Baseline, ResultSource::None);  // NotSupported: no vendor library here
    used.insert(std::string(kBaselineAlias));
    for (const auto& r : out.results)
      if (!used.count(r.alias.empty() ? r.name : r.alias)) add(r, ResultRole::Candidate, ResultSource::None);
    if (writer) writer->add(rows);  // the results file as shapes finish: nothing timed is lost to a later failure
    auto& mine = rows_by_input[out.job.id];
    mine.insert(mine.end(), rows.begin(), rows.end());
  };
  pool.run(std::move(jobs), cb);
  std::vector<ResultRow> all_rows;
  for (auto& [id, rows] : rows_by_input) all_rows.insert(all_rows.end(), rows.begin(), rows.end());
  if (const std::string note = discover::clock_note(clocks.summary()); !note.empty()) log().info("{}", note);

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
