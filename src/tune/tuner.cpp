#include "cktune/tune/tuner.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cktune/core/error.hpp"
#include "cktune/core/io.hpp"
#include "cktune/core/log.hpp"
#include "cktune/formats/cells.hpp"
#include "cktune/formats/csv.hpp"
#include "cktune/formats/lookup.hpp"
#include "cktune/tune/backend.hpp"
#include "cktune/tune/name_filter.hpp"
#include "cktune/tune/registry.hpp"
#include "cktune/tune/state.hpp"
#include "cktune/verify/verdict.hpp"

namespace cktune {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::optional<size_t> pick_winner(const std::vector<CandidateResult>& results, double err_limit,
                                  double tie_tolerance) {
  double best = std::numeric_limits<double>::infinity();
  for (const auto& r : results)
    if (r.verdict == Verdict::Passed && r.check.err_ratio <= err_limit && std::isfinite(r.time.median_us))
      best = std::min(best, r.time.median_us);
  if (!std::isfinite(best)) return std::nullopt;
  // Within the tie band, prefer the simpler and more portable candidate; the order never depends on
  // timing noise, so reruns with the same seed pick the same kernel when times tie.
  auto rank = [](const CandidateResult& r) {
    bool ours = r.libtype.rfind("cktune", 0) == 0;
    return std::make_tuple(r.split_k, ours ? 0 : 1, r.id, r.name);
  };
  std::optional<size_t> win;
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    if (r.verdict != Verdict::Passed || r.check.err_ratio > err_limit) continue;
    if (r.time.median_us > best * (1.0 + tie_tolerance)) continue;
    if (!win || rank(r) < rank(results[*win])) win = i;
  }
  return win;
}

std::vector<ProblemKey> shard_keys(const std::vector<ProblemKey>& keys, const std::string& shard) {
  if (shard.empty()) return keys;
  size_t slash = shard.find('/');
  int i = 0, n = 0;
  try {
    if (slash == std::string::npos) throw std::invalid_argument("no slash");
    i = std::stoi(shard.substr(0, slash));
    n = std::stoi(shard.substr(slash + 1));
  } catch (const std::exception&) {
    throw Error(fmt::format("bad --shard '{}'", shard), "use I/N with 1 <= I <= N, e.g. --shard 2/4");
  }
  if (n < 1 || i < 1 || i > n) throw Error(fmt::format("bad --shard '{}'", shard), "use I/N with 1 <= I <= N");
  std::vector<size_t> order(keys.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  auto cost = [&](size_t k) { return keys[k].flops() + 64.0 * keys[k].min_bytes(); };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    double ca = cost(a), cb = cost(b);
    if (ca != cb) return ca > cb;
    return keys[a].cells < keys[b].cells;
  });
  std::vector<double> load(static_cast<size_t>(n), 0.0);
  std::vector<int> owner(keys.size(), 0);
  for (size_t k : order) {
    size_t best = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[best] += cost(k);
    owner[k] = static_cast<int>(best) + 1;
  }
  std::vector<ProblemKey> out;
  for (size_t k = 0; k < keys.size(); ++k)
    if (owner[k] == i) out.push_back(keys[k]);
  return out;
}

namespace {

std::string py_bool(bool b) { return b ? "1" : "0"; }

// The candidates a job evaluates: every instance of the family that the filters keep.
std::vector<InstanceDesc> select_candidates(const TuneOptions& o, Family family) {
  std::vector<InstanceDesc> out;
  NameFilter filter(o.kernels);
  for (auto& d : list_instances(o.device, family, o.include_test_instances)) {
    if (!o.split_k && d.split_k > 1) continue;
    if (!o.libtypes.empty() && std::find(o.libtypes.begin(), o.libtypes.end(), "all") == o.libtypes.end() &&
        std::find(o.libtypes.begin(), o.libtypes.end(), d.libtype) == o.libtypes.end())
      continue;
    if (!filter.matches(d.name)) continue;
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<WorkerSpec> worker_specs(const TuneOptions& o) {
  std::vector<WorkerSpec> w;
  if (o.device == "gpu") {
    std::vector<int> ids = o.gpus;
    if (ids.empty())
      for (int i = 0; i < std::max(1, o.mp); ++i) ids.push_back(i);
    for (int id : ids) w.push_back({"gpu", id});
  } else {
    for (int i = 0; i < std::max(1, o.mp); ++i) w.push_back({"cpu", i});
  }
  return w;
}

// Cells of one tuned row in the family's tuned schema.
std::vector<std::string> tuned_row(Family family, const DeviceInfo& dev, const ProblemKey& key,
                                   const CandidateResult& r, const InstanceDesc* desc) {
  std::string block_m = "0";
  if (desc != nullptr)
    for (const auto& [k, v] : desc->params)
      if (k == "block_m") block_m = v;
  NamedCells cells;
  cells.emplace_back("gfx", dev.gfx);
  cells.emplace_back("cu_num", format_int(dev.cu_num));
  const auto& cols = spec(family).untuned;
  for (size_t i = 0; i < cols.size(); ++i) cells.emplace_back(cols[i], key.cells[i]);
  double us = r.time.median_us;
  double tflops = key.flops() / (us * 1e6);
  double bw = key.min_bytes() / (us * 1e-6) / 1e9;
  if (spec(family).is_moe) {
    // cktune's MoE candidates run both stages as one timed unit: us1 holds that time and kernelName1 the
    // instance; the stage-2 cells are empty-kernel zeros (documented in docs/formats.md).
    cells.emplace_back("block_m", block_m);
    cells.emplace_back("ksplit", format_int(r.split_k > 1 ? r.split_k : 0));
    cells.emplace_back("us1", format_us(us));
    cells.emplace_back("kernelName1", r.name);
    cells.emplace_back("err1", format_moe_err(r.check.err_ratio));
    cells.emplace_back("us2", format_us(0.0));
    cells.emplace_back("kernelName2", "");
    cells.emplace_back("err2", format_moe_err(0.0));
    cells.emplace_back("us", format_us(us));
    cells.emplace_back("run_1stage", py_bool(true));
    cells.emplace_back("xbf16", py_bool(false));
    cells.emplace_back("flat", py_bool(false));
    cells.emplace_back("tflops", format_tflops(tflops));
    cells.emplace_back("bw", format_bw(bw));
  } else {
    if (spec(family).has_libtype) cells.emplace_back("libtype", r.libtype);
    cells.emplace_back("kernelId", format_int(r.id));
    cells.emplace_back("splitK", format_int(r.split_k));
    cells.emplace_back("us", format_us(us));
    cells.emplace_back("kernelName", r.name);
    cells.emplace_back("tflops", format_tflops(tflops));
    cells.emplace_back("bw", format_bw(bw));
    cells.emplace_back("errRatio", format_err_ratio(r.check.err_ratio));
  }
  return make_tuned_row(family, cells);
}

std::string describe_failures(const std::vector<CandidateResult>& results) {
  std::map<std::string, int> by;
  for (const auto& r : results) ++by[std::string(to_string(r.verdict))];
  std::string s;
  for (const auto& [v, n] : by) s += fmt::format("{}{} {}", s.empty() ? "" : ", ", n, v);
  return s.empty() ? "no candidate could run" : s;
}

bool stderr_is_tty() { return ::isatty(STDERR_FILENO) == 1; }

}  // namespace

TuneSummary run_tune(const TuneOptions& o) {
  const auto t0 = Clock::now();
  TuneSummary sum;

  // 1. Load: the shapes, the family, the existing table.
  std::optional<Family> family = o.family;
  std::vector<ProblemKey> keys = load_problems(o.input, family);
  const Family fam = *family;
  const double err_limit = o.err_ratio_given ? o.err_ratio : (spec(fam).is_moe ? 0.1 : 0.05);
  TunedTable table = TunedTable::open(o.output, fam);

  // 2. Select: candidates and this run's share of shapes.
  std::vector<InstanceDesc> cands = select_candidates(o, fam);
  if (cands.empty())
    throw Error(fmt::format("no {} candidate on backend '{}' passes the filters", family_name(fam), o.device),
                "see `cktune list` and check --libtype / --kernels / --device");
  std::vector<std::string> cand_names;
  std::map<std::string, const InstanceDesc*> desc_of;
  for (auto& d : cands) {
    cand_names.push_back(d.name);
    desc_of[d.name] = &d;
  }
  keys = shard_keys(keys, o.shard);
  // Checked before any worker starts or any sidecar is written: a typo must not leave a journal behind.
  std::vector<InjectedFault> faults = parse_faults(o.inject_fault);
  for (const auto& f : faults)
    if (!desc_of.count(f.instance))
      throw Error(fmt::format("--inject-fault names '{}', which is not a candidate of this run", f.instance),
                  "see `cktune list` (--include-test-instances for the planted ones), --kernels and --libtype");
  sum.total = static_cast<int>(keys.size());

  // 3. Devices: start the workers first; gfx and cu_num of the rows come from the device they run on.
  PoolOptions popt;
  popt.exe = o.exe;
  popt.candidate_timeout_s = o.timeout_s;
  popt.prepare_timeout_s = o.prepare_timeout_s;
  for (int i = 0; i < o.verbosity; ++i) popt.worker_args.push_back("-v");
  WorkerPool pool(worker_specs(o), popt);
  std::vector<DeviceInfo> devices = pool.start();
  const DeviceInfo dev = devices.front();
  const std::string timer_name = dev.backend == "gpu" ? "events" : "steady_clock";
  for (const auto& d : devices)
    if (d.gfx != dev.gfx || d.cu_num != dev.cu_num)
      throw Error(fmt::format("workers see different devices ({} with {} CUs vs {} with {})", dev.gfx, dev.cu_num,
                              d.gfx, d.cu_num),
                  "tune one kind of GPU per run: choose them with --gpus or CUDA_VISIBLE_DEVICES");

  // 4. Resume: the journal knows what an interrupted run of the same command already finished.
  RunState state = RunState::open(o.output, run_identity(o, fam, keys, cand_names, dev));
  std::deque<Job> jobs;
  std::vector<ProblemKey> todo;
  for (const auto& k : keys) {
    bool in_table = table.has(dev.gfx, dev.cu_num, k);
    bool done_this_run = state.finished(k, o.retry_failed);
    if ((in_table && !o.all) || done_this_run) {
      ++sum.skipped;
      continue;
    }
    if (spec(fam).is_moe && !moe_token_reachable(k.size())) {
      log().warn("{}: token {} is never looked up by the runtime (it rounds up to {}); tuning it anyway",
                 k.to_string(), k.size(), moe_token_key(k.size()));
      ++sum.unreachable;
    }
    todo.push_back(k);
  }
  // Costliest first, so the long shapes do not end up alone at the end of a multi-GPU run.
  std::stable_sort(todo.begin(), todo.end(), [](const ProblemKey& a, const ProblemKey& b) {
    return a.flops() + 64 * a.min_bytes() > b.flops() + 64 * b.min_bytes();
  });
  int next_id = 0;
  for (const auto& k : todo) {
    Job j;
    j.id = next_id++;
    j.key = k;
    j.candidates = cand_names;
    j.seed = o.protocol.seed;
    j.protocol = o.protocol;
    j.protocol.timer = timer_name;
    j.tolerance.max_err_ratio = err_limit;
    j.tolerance.max_row_err_ratio = o.max_row_err_ratio;
    j.screen_factor = o.screen_factor;
    j.retime_tolerance = o.retime_tolerance;
    j.retime_rounds = o.retime_rounds;
    j.faults = faults;
    jobs.push_back(std::move(j));
  }
  write_provenance(o, fam, devices, sum.total, "running");
  copy_untuned_input(o.input, o.output);
  log().info("tune {}: {} shapes ({} to do, {} already done), {} candidates each, {} worker(s) on {} ({}, cu_num {})",
             family_name(fam), sum.total, todo.size(), sum.skipped, cand_names.size(), devices.size(), dev.name,
             dev.gfx, dev.cu_num);

  std::optional<ResultsWriter> profile;
  if (!o.profile_file.empty()) profile.emplace(o.profile_file, fam, /*resume=*/true);

  // 5. Measure, pick, write: each finished shape is saved before the next result is looked at.
  int done = 0, cands_done = 0;
  const bool tty = stderr_is_tty() && o.progress;
  auto last_line = Clock::now();
  PoolCallbacks cb;
  cb.on_event = [&](const std::string&, const nlohmann::json& ev) {
    if (ev.value("ev", "") == "result") {
      ++cands_done;
      if (sum.first_timing_s < 0) sum.first_timing_s = std::chrono::duration<double>(Clock::now() - t0).count();
    }
  };
  cb.on_tick = [&](const std::vector<WorkerStatus>& st) {
    double el = std::chrono::duration<double>(Clock::now() - t0).count();
    double rate = done > 0 ? done / el : 0.0;
    double eta = rate > 0 ? (static_cast<double>(todo.size()) - done) / rate : 0.0;
    std::string line = fmt::format("tune: {}/{} shapes, {} candidate results, {:.2f} shapes/s, ETA {:.0f} s", done,
                                   todo.size(), cands_done, rate, eta);
    for (const auto& s : st)
      line += fmt::format(" | {} {} {:.0f}s {}", s.label, s.state, s.seconds_in_state, s.activity);
    if (tty) {
      fmt::print(stderr, "\r\033[K{}", line.substr(0, 200));
    } else if (std::chrono::duration<double>(Clock::now() - last_line).count() >= 10.0) {
      last_line = Clock::now();
      log().info("{}", line);
    }
  };
  cb.on_job_done = [&](const JobOutcome& out) {
    ++done;
    const ProblemKey& key = out.job.key;
    if (tty) fmt::print(stderr, "\r\033[K");
    if (profile) {
      std::vector<ResultRow> rows;
      for (const auto& r : out.results)
        rows.push_back(result_row(key, out.device, r, ResultRole::Candidate, ResultSource::None, out.job.protocol,
                                  out.job.seed));
      profile->add(rows);
    }
    sum.candidates += static_cast<int>(out.results.size());
    if (!out.failure.empty()) {
      ++sum.failed;
      log().error("{}: failed: {}", key.to_string(), out.failure);
      state.record(key, "failed", out.failure);
      return;
    }
    auto win = pick_winner(out.results, err_limit, o.tie_tolerance);
    if (!win) {
      ++sum.failed;
      std::string why = describe_failures(out.results);
      log().error("{}: no candidate passed ({})", key.to_string(), why);
      state.record(key, "failed", why);
      return;
    }
    // Did re-timing change the winner? Compare with the pick on first timings alone.
    std::vector<CandidateResult> first = out.results;
    for (auto& r : first)
      if (r.retimed) r.time.median_us = r.first_median_us;
    auto win_first = pick_winner(first, err_limit, o.tie_tolerance);
    if (win_first && *win_first != *win) ++sum.changed_on_retime;

    const CandidateResult& w = out.results[*win];
    // What the runtime runs today for this key: the existing row's kernel, else the default heuristic.
    std::string current = table.kernel_for(dev.gfx, dev.cu_num, key);
    bool had_row = !current.empty();
    if (!had_row) current = out.default_instance;
    const CandidateResult* cur = nullptr;
    for (const auto& r : out.results)
      if (r.name == current && r.verdict == Verdict::Passed) cur = &r;
    if (o.min_improvement_pct && cur != nullptr) {
      double gain = (cur->time.median_us / w.time.median_us - 1.0) * 100.0;
      if (gain < *o.min_improvement_pct) {
        ++sum.kept;
        log().info("{}: best {} is only {:.1f}% faster than the current {} (< {}%): {}", key.to_string(), w.name,
                   gain, current, *o.min_improvement_pct, had_row ? "kept the existing row" : "no row written");
        state.record(key, "kept", current);
        return;
      }
    }
    table.put(tuned_row(fam, out.device, key, w, desc_of.count(w.name) ? desc_of[w.name] : nullptr));
    table.save();
    ++sum.tuned;
    if (had_row) ++sum.replaced; else ++sum.added;
    state.record(key, "tuned", w.name);
    log().info("{}: {} {:.2f} us ({} of {} candidates passed{})", key.to_string(), w.name, w.time.median_us,
               std::count_if(out.results.begin(), out.results.end(),
                             [](const CandidateResult& r) { return r.verdict == Verdict::Passed; }),
               out.results.size(), cur ? fmt::format(", {:.2f}x vs current {}", cur->time.median_us / w.time.median_us, current) : "");
  };
  pool.run(std::move(jobs), cb);
  if (tty) fmt::print(stderr, "\r\033[K");

  sum.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  write_provenance(o, fam, devices, sum.total, "finished");
  return sum;
}

}  // namespace cktune
