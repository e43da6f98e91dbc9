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

#include "cktune/aiter/instances.hpp"
#include "cktune/core/error.hpp"
#include "cktune/core/io.hpp"
#include "cktune/core/lock.hpp"
#include "cktune/core/log.hpp"
#include "cktune/formats/cells.hpp"
#include "cktune/formats/csv.hpp"
#include "cktune/formats/lookup.hpp"
#include "cktune/results/results.hpp"
#include "cktune/engine/backend.hpp"
#include "cktune/engine/family_unit.hpp"
#include "cktune/engine/problems.hpp"
#include "cktune/engine/result_rows.hpp"
#include "cktune/engine/name_filter.hpp"
#include "cktune/engine/registry.hpp"
#include "cktune/tune/state.hpp"
#include "cktune/verify/verdict.hpp"

namespace cktune {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::optional<size_t> pick_winner(const std::vector<CandidateResult>& results, double err_limit,
                                  double tie_tolerance, WinnerScope scope) {
  auto eligible = [&](const CandidateResult& r) {
    return r.verdict == Verdict::Passed && !r.screened_out && r.check.err_ratio <= err_limit &&
           std::isfinite(r.time.median_us) && (scope == WinnerScope::Any || aiter_can_load(r.provider));
  };
  double best = std::numeric_limits<double>::infinity();
  for (const auto& r : results)
    if (eligible(r)) best = std::min(best, r.time.median_us);
  if (!std::isfinite(best)) return std::nullopt;
  // Within the tie band, prefer the simpler and more portable candidate; the order never depends on
  // timing noise, so reruns with the same seed pick the same kernel when times tie.
  auto rank = [](const CandidateResult& r) { return std::make_tuple(r.split_k, is_own(r.provider) ? 0 : 1, r.id, r.name); };
  std::optional<size_t> win;
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    if (!eligible(r) || r.time.median_us > best * (1.0 + tie_tolerance)) continue;
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
  auto cost = [&](size_t k) { return shape_cost(keys[k]); };
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

void TuneOptions::validate() const {
  measure.validate();
  auto bad = [](std::string_view opt, double v, std::string_view rule) {
    return Error(fmt::format("{} {} is out of range: it must be {}", opt, v, rule), fmt::format("see `cktune help tune`"));
  };
  if (!std::isfinite(screen_factor) || (screen_factor != 0 && screen_factor < 1))
    throw bad("--screen-factor", screen_factor, "0 (off) or at least 1");
  if (!std::isfinite(retime_tolerance) || retime_tolerance < 0 || retime_tolerance > 1)
    throw bad("--retime-tolerance", retime_tolerance, "a fraction from 0 to 1");
  if (retime_rounds < 0 || retime_rounds > 1000) throw bad("--retime-rounds", retime_rounds, "from 0 to 1000");
  if (!std::isfinite(tie_tolerance) || tie_tolerance < 0 || tie_tolerance > 1)
    throw bad("--tie-tolerance", tie_tolerance, "a fraction from 0 to 1");
  if (!std::isfinite(confirm_margin) || confirm_margin < 0) throw bad("--confirm-margin", confirm_margin, "0 (off) or more");
  if (min_improvement_pct && (!std::isfinite(*min_improvement_pct) || *min_improvement_pct < 0))
    throw bad("--min-improvement", *min_improvement_pct, "a percentage of 0 or more");
  if (!profile_file.empty() && !output.empty()) {
    std::error_code e1, e2;
    if (fs::weakly_canonical(profile_file, e1) == fs::weakly_canonical(output, e2))
      throw Error(fmt::format("-o and -o2 name the same file ({})", output),
                  "the profile (-o2) is a results file and the table (-o) an AITER table: give them different names");
  }
}

std::vector<InstanceDesc> filter_candidates(std::vector<InstanceDesc> all, const TuneOptions& o) {
  std::vector<InstanceDesc> out;
  NameFilter filter(o.kernels);
  NameFilter drop(o.exclude_kernels, "--exclude-kernels");
  for (auto& d : all) {
    if (d.baseline_only) continue;
    if (!o.split_k && d.split_k > 1) continue;
    const std::string lt(to_string(d.provider));
    if (!o.libtypes.empty() && std::find(o.libtypes.begin(), o.libtypes.end(), "all") == o.libtypes.end() &&
        std::find(o.libtypes.begin(), o.libtypes.end(), lt) == o.libtypes.end())
      continue;
    if (!filter.matches(d.name) || (!drop.empty() && drop.matches(d.name))) continue;
    out.push_back(std::move(d));
  }
  return out;
}

namespace {

std::vector<InstanceDesc> select_candidates(const TuneOptions& o, BackendKind backend, Family family) {
  return filter_candidates(list_instances(backend, family, o.include_test_instances), o);
}

// Per verdict, how many candidates and the reason most of them gave (a shape every kernel refuses says why, e.g.
// "16 not_supported: K is not a multiple of 128: ..."), verdicts apart by "; ".
std::string describe_failures(const std::vector<CandidateResult>& results) {
  struct Tally {
    int n = 0;
    std::map<std::string, int> reasons;
  };
  std::map<std::string, Tally> by;
  for (const auto& r : results) {
    Tally& t = by[std::string(to_string(r.verdict))];
    ++t.n;
    if (!r.reason.empty()) ++t.reasons[r.reason];
  }
  std::string s;
  for (const auto& [v, t] : by) {
    s += fmt::format("{}{} {}", s.empty() ? "" : "; ", t.n, v);
    if (t.reasons.empty()) continue;
    // The most common reason; among equals the first in order, so the text is the same from run to run.
    auto top = t.reasons.begin();
    for (auto it = t.reasons.begin(); it != t.reasons.end(); ++it)
      if (it->second > top->second) top = it;
    s += fmt::format(": {}", top->first);
    if (t.reasons.size() > 1)
      s += fmt::format(" ({} of them; {} other reason{})", top->second, t.reasons.size() - 1,
                       t.reasons.size() > 2 ? "s" : "");
  }
  return s.empty() ? "no candidate could run" : s;
}

bool stderr_is_tty() { return ::isatty(STDERR_FILENO) == 1; }

std::string format_seconds(double s) {
  if (!std::isfinite(s) || s < 0) return "--";
  if (s < 90) return fmt::format("{:.0f} s", s);
  if (s < 5400) return fmt::format("{:.0f} min", s / 60);
  return fmt::format("{:.1f} h", s / 3600);
}

}  // namespace

TuneSummary run_tune(const TuneOptions& o) {
  const auto t0 = Clock::now();
  TuneSummary sum;
  o.validate();
  // One writer per output: the table and its sidecars (journal, provenance, untuned copy), and the
  // profile, for the whole run. A second run on the same -o stops here, naming the holder.
  check_output_path(o.output);
  OutputLock table_lock(o.output);
  std::optional<OutputLock> profile_lock;
  if (!o.profile_file.empty()) {
    check_output_path(o.profile_file);
    profile_lock.emplace(o.profile_file);
  }

  // 1. Load: the shapes, the family, the existing table.
  std::optional<Family> family = o.family;
  std::vector<ProblemKey> keys = load_problems(o.input, family);
  const Family fam = *family;
  if (keys.empty())
    throw Error(fmt::format("{}: no shapes to tune (the table has a header and no rows)", o.input),
                "capture shapes first (`cktune capture`), or check that -i names the right file");
  const double err_limit = o.measure.err_limit(fam);
  TunedTable table = TunedTable::open(o.output, fam);

  // 2. Select: devices, candidates and this run's share of shapes.
  const DeviceChoice devices_wanted = choose_devices(o.measure);
  log().info("device: {} ({})", to_string(devices_wanted.backend), devices_wanted.why);
  const FamilyUnit* unit = find_family_unit(fam, devices_wanted.backend);
  if (unit == nullptr)
    throw Error(fmt::format("the {} backend has no {} implementation", to_string(devices_wanted.backend),
                            family_name(fam)),
                "see `cktune list` for what each backend offers; --device cpu runs every family cktune has");
  std::vector<InstanceDesc> cands = select_candidates(o, devices_wanted.backend, fam);
  if (cands.empty())
    throw Error(fmt::format("no {} candidate on backend '{}' passes the filters", family_name(fam),
                            to_string(devices_wanted.backend)),
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
  WorkerPool pool(worker_specs(devices_wanted), pool_options(o.measure));
  std::vector<DeviceInfo> devices = pool.start();
  const DeviceInfo dev = devices.front();
  const std::string timer_name(timer_name_for(dev));
  for (const auto& d : devices)
    if (d.gfx != dev.gfx || d.cu_num != dev.cu_num)
      throw Error(fmt::format("workers see different devices ({} with {} CUs vs {} with {})", dev.gfx, dev.cu_num,
                              d.gfx, d.cu_num),
                  "tune one kind of GPU per run: choose them with --gpus or CUDA_VISIBLE_DEVICES");
  // A table for an AMD Instinct gfx is AITER's: only kernels AITER can build may win its rows.
  const WinnerScope scope = aiter::is_amd_gfx(dev.gfx) ? WinnerScope::AiterLoadable : WinnerScope::Any;
  if (scope == WinnerScope::AiterLoadable)
    log().info("{}: only AITER's own CK / CK-tile instances may win a row; the other candidates are timed for "
               "comparison (profile, -o2)", dev.gfx);

  // 4. Resume. The table is the truth: a key with a row is done (unless --all, where the journal says
  // which rows this run already rewrote); a key without a row is tuned whatever the journal says, except
  // that --min-improvement may have decided on purpose to write none ("kept").
  RunState state = RunState::open(o.output, run_identity(o, fam, keys, cand_names, dev));
  std::deque<Job> jobs;
  std::vector<ProblemKey> todo;
  for (const auto& k : keys) {
    const bool in_table = table.has(dev.gfx, dev.cu_num, k);
    const std::optional<JournalStatus> journal = state.status(k);
    const bool done = in_table ? (!o.all || journal == JournalStatus::Tuned || journal == JournalStatus::Kept)
                               : journal == JournalStatus::Kept;
    if (done) {
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
  // Costliest first, the cheapest leading (run_order: why).
  {
    std::vector<ProblemKey> ordered;
    for (size_t k : run_order(todo)) ordered.push_back(todo[k]);
    todo = std::move(ordered);
  }
  double cost_total = 0, cost_done = 0;
  for (const auto& k : todo) cost_total += shape_cost(k);
  int next_id = 0;
  for (const auto& k : todo) {
    Job j = make_job(next_id++, k, cand_names, o.measure, timer_name);
    j.screen_factor = o.screen_factor;
    j.retime_tolerance = o.retime_tolerance;
    j.retime_rounds = o.retime_rounds;
    j.confirm_margin = o.confirm_margin;
    j.skip_redundant = true;
    j.faults = faults;
    jobs.push_back(std::move(j));
  }
  write_provenance(o, fam, devices, sum.total, "running");
  // What the clocks do while kernels are timed (NVML; inactive elsewhere): sampled at every tick and finished shape.
  discover::ClockWatch clocks(devices);
  copy_untuned_input(o.input, o.output);
  log().info("tune {}: {} shapes ({} to do, {} already done), {} candidates each, {} worker(s) on {} ({}, cu_num {})",
             family_name(fam), sum.total, todo.size(), sum.skipped, cand_names.size(), devices.size(), dev.name,
             dev.gfx, dev.cu_num);

  std::optional<ResultsWriter> profile;
  if (!o.profile_file.empty()) profile.emplace(o.profile_file, fam, /*resume=*/true);

  // 5. Measure, pick, write: each finished shape is saved before the next result is looked at.
  int done = 0, cands_done = 0;
  std::map<std::vector<std::string>, std::string> failure_of;  // this run's reason per failed key
  std::vector<double> speedups;                                // default / winner, where the default ran
  const bool tty = stderr_is_tty() && o.progress;
  auto last_line = Clock::now();
  PoolCallbacks cb;
  cb.on_event = [&](const std::string&, const nlohmann::json& ev) {
    if (event_kind(ev) == EventKind::Result) {
      ++cands_done;
      if (sum.first_timing_s < 0) sum.first_timing_s = std::chrono::duration<double>(Clock::now() - t0).count();
    }
  };
  cb.on_tick = [&](const std::vector<WorkerStatus>& st) {
    clocks.sample();
    const double el = std::chrono::duration<double>(Clock::now() - t0).count();
    // ETA from the cost model: seconds per unit of cost so far, times the cost still queued. Unknown
    // until a shape has finished.
    const double eta = cost_done > 0 ? el / cost_done * (cost_total - cost_done) : -1.0;
    std::string line = fmt::format("tune: {}/{} shapes, {} candidate results, {:.0f} s elapsed, ETA {}", done,
                                   todo.size(), cands_done, el, format_seconds(eta));
    for (const auto& s : st)
      line += fmt::format(" | {} {} {:.0f}s {}", s.label, to_string(s.state), s.seconds_in_state, s.activity);
    if (tty) {
      fmt::print(stderr, "\r\033[K{}", line.substr(0, 200));
    } else if (std::chrono::duration<double>(Clock::now() - last_line).count() >= 10.0) {
      last_line = Clock::now();
      log().info("{}", line);
    }
  };
  cb.on_job_done = [&](const JobOutcome& out) {
    ++done;
    clocks.sample();
    const ProblemKey& key = out.job.key;
    cost_done += shape_cost(key);
    if (tty) fmt::print(stderr, "\r\033[K");
    if (profile) {
      std::vector<ResultRow> rows;
      for (const auto& r : out.results)
        rows.push_back(result_row(key, out.device, r, ResultRole::Candidate, ResultSource::None, out.job.protocol,
                                  out.job.seed));
      profile->add(rows);
    }
    sum.candidates += static_cast<int>(out.results.size());
    std::string phases;
    for (const auto& [phase, ms] : out.phases_ms) {
      sum.phases_s[phase] += ms / 1000.0;
      phases += fmt::format(" {} {:.2f}", phase, ms / 1000.0);
    }
    log().debug("{}: {} candidate results; seconds by phase:{}", key.to_string(), out.results.size(), phases);
    if (!out.failure.empty()) {
      ++sum.failed;
      failure_of[key.cells] = out.failure;
      log().error("{}: failed: {}", key.to_string(), out.failure);
      state.record(key, JournalStatus::Failed, out.failure);
      return;
    }
    auto win = pick_winner(out.results, err_limit, o.tie_tolerance, scope);
    if (!win) {
      ++sum.failed;
      std::string why = describe_failures(out.results);
      auto any = pick_winner(out.results, err_limit, o.tie_tolerance);
      if (any) {
        // Verified candidates exist, but none AITER could build: nothing may go into its table.
        const CandidateResult& f = out.results[*any];
        why = fmt::format("{} passed, none of them a kernel AITER can load on {} (fastest: {}, libtype {}, "
                          "{:.2f} us); AITER builds only the CK / CK-tile instances of its own lists, and this "
                          "binary wraps none (docs/arch/aiter.md)",
                          std::count_if(out.results.begin(), out.results.end(),
                                        [](const CandidateResult& r) { return r.verdict == Verdict::Passed; }),
                          dev.gfx, f.name, to_string(f.provider), f.time.median_us);
        failure_of[key.cells] = why;
      } else {
        failure_of[key.cells] = "no candidate passed (" + why + ")";
      }
      log().error("{}: {}", key.to_string(), failure_of[key.cells]);
      state.record(key, JournalStatus::Failed, why);
      return;
    }
    // Did re-timing change the winner? Compare with the pick on first timings alone.
    std::vector<CandidateResult> first = out.results;
    for (auto& r : first)
      if (r.retimed) r.time.median_us = r.first_median_us;
    auto win_first = pick_winner(first, err_limit, o.tie_tolerance, scope);
    if (win_first && *win_first != *win) ++sum.changed_on_retime;

    const CandidateResult& w = out.results[*win];
    for (const auto& r : out.results)
      if (r.name == out.default_instance && r.verdict == Verdict::Passed && w.time.median_us > 0)
        speedups.push_back(r.time.median_us / w.time.median_us);
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
        state.record(key, JournalStatus::Kept, current);
        return;
      }
    }
    table.put(unit->tuned_row(key, out.device, w, *desc_of.at(w.name)));
    table.save();
    ++sum.tuned;
    if (had_row) ++sum.replaced; else ++sum.added;
    state.record(key, JournalStatus::Tuned, w.name);
    log().info("{}: {} {:.2f} us ({} of {} candidates passed{}{})", key.to_string(), w.name, w.time.median_us,
               std::count_if(out.results.begin(), out.results.end(),
                             [](const CandidateResult& r) { return r.verdict == Verdict::Passed; }),
               out.results.size(), w.confirmed ? ", confirmed on fresh buffers" : "",
               cur ? fmt::format(", {:.2f}x vs current {}", cur->time.median_us / w.time.median_us, current) : "");
  };
  pool.run(std::move(jobs), cb);
  if (tty) fmt::print(stderr, "\r\033[K");

  // 6. Account: every requested key must now have a verified row (or a deliberate "kept").
  if (!table.csv().rows.empty() || sum.total == 0) table.save();  // a shard with no keys still leaves a table
  for (const auto& k : keys) {
    if (table.has(dev.gfx, dev.cu_num, k) || state.status(k) == JournalStatus::Kept) continue;
    auto it = failure_of.find(k.cells);
    sum.missing.push_back({k.to_string(), it != failure_of.end() ? it->second : "not tuned"});
  }
  if (!speedups.empty()) {
    double lg = 0;
    for (double x : speedups) lg += std::log(x);
    sum.speedup_vs_default = std::exp(lg / static_cast<double>(speedups.size()));
    sum.speedup_shapes = static_cast<int>(speedups.size());
  }
  sum.device = to_string(devices_wanted.backend);
  sum.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  const discover::ClockSummary clk = clocks.summary();
  if (const std::string note = discover::clock_note(clk); !note.empty()) log().info("{}", note);
  write_provenance(o, fam, devices, sum.total, sum.missing.empty() ? "finished" : "incomplete",
                   clocks.active() ? &clk : nullptr);
  return sum;
}

}  // namespace cktune
