#include "cktune/engine/evaluate.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <limits>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/core/log.hpp"
#include "cktune/engine/family_unit.hpp"
#include "cktune/engine/policy.hpp"
#include "cktune/engine/registry.hpp"

namespace cktune {

Instance* InstanceCache::find(Family family, const std::string& name) {
  auto it = by_family_.find(family);
  if (it == by_family_.end()) {
    std::map<std::string, InstancePtr> m;
    if (const FamilyUnit* unit = find_family_unit(family, backend_.kind()))
      for (auto& inst : unit->instances(backend_)) {
        std::string n = inst->desc().name;
        m.emplace(std::move(n), std::move(inst));
      }
    it = by_family_.emplace(family, std::move(m)).first;
  }
  auto jt = it->second.find(name);
  return jt == it->second.end() ? nullptr : jt->second.get();
}

namespace {

// Wraps a candidate so that it misbehaves the way a broken kernel would.
class FaultyInstance final : public Instance {
 public:
  FaultyInstance(Instance& inner, Backend& backend, FaultKind kind)
      : Instance(inner.desc()), inner_(inner), backend_(backend), kind_(kind) {}
  std::string why_not(const ProblemKey& key) const override { return inner_.why_not(key); }
  std::string redundant(const ProblemKey& key) const override { return inner_.redundant(key); }
  void launch(Workload& workload, int set) override {
    switch (kind_) {
      case FaultKind::Crash:
        std::fflush(nullptr);
        // What a wild kernel or driver fault does to the process: killed by SIGSEGV. The default action
        // first, so that no handler (AddressSanitizer's, in the sanitizer build) turns it into a report.
        std::signal(SIGSEGV, SIG_DFL);
        std::raise(SIGSEGV);
        break;
      case FaultKind::Hang:
        backend_.hang();
        break;
      case FaultKind::Wrong:
      case FaultKind::Partial:
        inner_.launch(workload, set);
        workload.output().corrupt(kind_);
        break;
      case FaultKind::None:
        inner_.launch(workload, set);
        break;
    }
  }

 private:
  Instance& inner_;
  Backend& backend_;
  FaultKind kind_;
};

// The best median among the passed candidates (infinity when none passed).
double best_passed_us(const std::vector<CandidateResult>& results) {
  double best = std::numeric_limits<double>::infinity();
  for (const auto& r : results)
    if (r.verdict == Verdict::Passed) best = std::min(best, r.time.median_us);
  return best;
}

FaultKind fault_for(const Job& job, const std::string& name) {
  for (const auto& f : job.faults)
    if (f.instance == name) return f.kind;
  return FaultKind::None;
}

// A candidate as the job runs it: the instance itself, or wrapped in its injected fault.
struct Runnable {
  Runnable(Instance& inst, Backend& backend, FaultKind fault) : faulty(inst, backend, fault), plain(inst), kind(fault) {}
  Instance& get() { return kind == FaultKind::None ? plain : static_cast<Instance&>(faulty); }
  FaultyInstance faulty;
  Instance& plain;
  FaultKind kind;
};

// Wall time of one job, by phase: where a tune's time goes (reported in the Done event, summed by `tune`).
class PhaseClock {
 public:
  template <class F>
  void run(const char* phase, F&& f) {
    const auto t = std::chrono::steady_clock::now();
    struct Add {
      PhaseClock& c;
      const char* p;
      std::chrono::steady_clock::time_point t;
      ~Add() { c.ms_[p] += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count(); }
    } add{*this, phase, t};
    f();
  }
  nlohmann::json to_json() const {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [k, v] : ms_) j[k] = v;
    return j;
  }

 private:
  std::map<std::string, double> ms_;
};

// Times `run` with the full (or given) protocol and then checks what the timed launches left in the
// output: the output is poisoned before the loop, so a kernel that wrote nothing, or wrote only in its
// first launch, fails here even when its separate verification launch passed.
void time_and_check(Backend& backend, Instance& run, Workload& workload, const Protocol& protocol,
                    const Tolerance& tol, CandidateResult& r, PhaseClock* clock = nullptr) {
  PhaseClock unused;
  PhaseClock& c = clock != nullptr ? *clock : unused;
  workload.output().poison();
  c.run("time", [&] {
    auto timer = backend.make_timer();
    r.time = measure(run, workload, *timer, protocol, r.time.median_us);  // the screen's time, if it ran
  });
  CheckResult after;
  c.run("check", [&] { after = check_output_now(workload, tol); });
  if (after.verdict != Verdict::Passed) {
    r.verdict = after.verdict;
    r.check = after;
    r.reason = "the timed launches' output is wrong: " + after.reason;
  }
}

// Runs one part of a pipeline instance as if it were an instance of its own, so that measure() times it.
class PartInstance final : public Instance {
 public:
  PartInstance(Instance& whole, int part) : Instance(whole.desc()), whole_(whole), part_(part) {}
  std::string why_not(const ProblemKey& key) const override { return whole_.why_not(key); }
  void launch(Workload& w, int set) override { whole_.launch_part(w, set, part_); }

 private:
  Instance& whole_;
  int part_;
};

// The pipeline candidates that can still win (within the re-timing tolerance of the best) and the
// untuned default: each part timed alone with the job's protocol, right after a whole launch has left
// the intermediate buffers valid. The parts' times are reported (AITER's us1/us2 of the winner's row);
// the candidate's own time stays the whole pipeline's. (Timing the parts of every fully timed pipeline
// took a third of a fused-MoE tune and only the winner's reach the table.)
void time_parts(Backend& backend, InstanceCache& cache, const Job& job, Workload& workload,
                std::vector<CandidateResult>& results, const std::string& default_name) {
  double best = std::numeric_limits<double>::infinity();
  for (const auto& r : results)
    if (r.verdict == Verdict::Passed && !r.screened_out) best = std::min(best, r.time.median_us);
  for (CandidateResult& r : results) {
    if (r.verdict != Verdict::Passed || r.screened_out) continue;
    if (r.time.median_us > best * (1.0 + job.retime_tolerance) && r.name != default_name) continue;
    Instance* inst = cache.find(job.key.family, r.name);
    if (inst == nullptr || inst->parts() == 0) continue;
    r.part_us.clear();
    r.part_names.clear();
    try {
      inst->launch(workload, 0);
      for (int p = 0; p < inst->parts(); ++p) {
        PartInstance part(*inst, p);
        auto timer = backend.make_timer();
        r.part_us.push_back(measure(part, workload, *timer, job.protocol, r.time.median_us).median_us);
        r.part_names.push_back(inst->part_name(p));
      }
    } catch (const std::exception&) {
      // The whole pipeline was verified and timed; only the breakdown is missing.
      r.part_us.clear();
      r.part_names.clear();
    }
  }
}

// The near ties (near_ties()) are timed again in interleaved rounds (A B C A B C ...), so that clock and
// thermal drift hit all of them alike; the median of the round medians decides.
void retime_near_ties(Backend& backend, InstanceCache& cache, const Job& job, Workload& workload,
                      std::vector<CandidateResult>& results) {
  if (job.retime_rounds <= 0) return;
  const std::vector<size_t> near = near_ties(results, job.retime_tolerance);
  if (near.empty()) return;
  std::vector<std::vector<Measurement>> rounds(near.size());
  for (int rnd = 0; rnd < job.retime_rounds; ++rnd) {
    for (size_t j = 0; j < near.size(); ++j) {
      CandidateResult& r = results[near[j]];
      if (r.verdict != Verdict::Passed) continue;
      Runnable run(*cache.find(job.key.family, r.name), backend, fault_for(job, r.name));
      CandidateResult probe = r;
      time_and_check(backend, run.get(), workload, round_protocol(job, r.time.median_us), job.tolerance, probe);
      if (probe.verdict != Verdict::Passed) {
        r.verdict = probe.verdict;
        r.check = probe.check;
        r.reason = probe.reason;
        continue;
      }
      rounds[j].push_back(probe.time);
    }
  }
  for (size_t j = 0; j < near.size(); ++j) {
    CandidateResult& r = results[near[j]];
    if (r.verdict != Verdict::Passed || rounds[j].empty()) continue;
    r.first_median_us = r.time.median_us;
    // The spread goes with the median: the rounds' typical p10..p90 (and their min), not the first
    // timing's, which ran before the others and may have seen other load (compare's noise rule pairs
    // the median with this interval). The rounds' iterations are what the row reports.
    r.time = combine_timings(rounds[j]);
    r.retimed = true;
  }
}

// A winner that beats the runner-up by a wide margin is the likeliest to be a measurement artefact
// (state left by an earlier candidate, a launch that did less than it should): verify and time it again
// on freshly prepared buffers before anyone sees its number. Its confirmed time replaces the first one.
void confirm_runaway_winner(Backend& backend, const FamilyUnit& unit, InstanceCache& cache, const Job& job,
                            const Reference& reference, std::vector<CandidateResult>& results) {
  if (job.confirm_margin <= 0) return;
  std::vector<size_t> passed;
  for (size_t i = 0; i < results.size(); ++i)
    if (results[i].verdict == Verdict::Passed && std::isfinite(results[i].time.median_us)) passed.push_back(i);
  if (passed.size() < 2) return;
  std::sort(passed.begin(), passed.end(),
            [&](size_t a, size_t b) { return results[a].time.median_us < results[b].time.median_us; });
  CandidateResult& best = results[passed[0]];
  const double runner_up = results[passed[1]].time.median_us;
  if (best.time.median_us * (1.0 + job.confirm_margin) > runner_up) return;
  // New allocations holding the same inputs (same seed), so the reference carries over: what is checked is
  // that the winner does not depend on what earlier candidates left in buffers or on where data lives.
  std::unique_ptr<Workload> fresh = unit.prepare(job.key, job.protocol, job.seed, backend, &reference);
  Runnable run(*cache.find(job.key.family, best.name), backend, fault_for(job, best.name));
  CandidateResult again = best;
  again.check = run_and_check(run.get(), *fresh, job.tolerance);
  if (again.check.verdict != Verdict::Passed) {
    best.verdict = again.check.verdict;
    best.check = again.check;
    best.reason = "failed on fresh buffers: " + again.check.reason;
    return;
  }
  time_and_check(backend, run.get(), *fresh, job.protocol, job.tolerance, again);
  if (again.verdict != Verdict::Passed) {
    best.verdict = again.verdict;
    best.check = again.check;
    best.reason = again.reason;
    return;
  }
  best.confirmed = true;
  best.confirm_median_us = again.time.median_us;
  best.time = again.time;
}

}  // namespace

Measurement finish_screen(const std::function<Measurement(const Protocol&)>& time, const Measurement& probe_t,
                          const Protocol& probe, const Protocol& rest, double cutoff) {
  Measurement t = probe_t;
  if (t.median_us > cutoff && t.median_us <= cutoff + kScreenHiccupUs) {
    Measurement again = time(probe);
    if (again.median_us < t.median_us) t = std::move(again);
  }
  return t.median_us <= cutoff ? time(rest) : t;
}

double screen_cutoff(const std::vector<CandidateResult>& probed, double screen_factor) {
  return best_passed_us(probed) * screen_factor * kProbeFactor;
}

// One interleaved round of a near tie whose first timing took `us` a launch: half the warm-up and a share of the
// launches, but never a batch shorter than kMinRoundBatchUs (up to the full protocol's launches). Where a launch
// falls in its batch changes its time: on an H200 the last ~9 launches of every batch of a 9 us memory-bound kernel
// ran 8.6 us against 9.2-9.3 for the others (docs/perf.md, 2026-12-02), so a round of 20 launches had its median among
// those and one timing of 101 did not, and tune wrote 8.7 us where bench measured 9.3. A batch as long as the full
// timing's keeps the share the same; for kernels of 100 us and more the share of launches is as before.
Protocol round_protocol(const Job& job, double us) {
  Protocol round = job.protocol;
  round.warmup = std::max(1, job.protocol.warmup / 2);
  const int share = std::max(5, job.protocol.iters / job.retime_rounds);
  const int for_length = us > 0 ? static_cast<int>(std::ceil(kMinRoundBatchUs / us)) : share;
  round.iters = std::max(share, std::min(for_length, job.protocol.iters));
  round.min_time_ms = job.protocol.min_time_ms / job.retime_rounds;
  return round;
}

std::vector<size_t> near_ties(const std::vector<CandidateResult>& results, double tol) {
  const CandidateResult* best = nullptr;
  for (const auto& r : results)
    if (r.verdict == Verdict::Passed && (best == nullptr || r.time.median_us < best->time.median_us)) best = &r;
  std::vector<size_t> near;
  if (best == nullptr || !std::isfinite(best->time.median_us)) return near;
  const double best_us = best->time.median_us;
  // A long kernel's p90 against the others' p10 (both measured after the settling); 0 when not recorded.
  const bool settled = best_us >= Protocol::kSettleMinUs && best->time.p90_us > 0;
  for (size_t i = 0; i < results.size(); ++i) {
    const CandidateResult& r = results[i];
    if (r.verdict != Verdict::Passed) continue;
    const bool close = r.time.median_us <= best_us * (1.0 + tol);
    const bool overlaps = settled && r.time.p10_us > 0 && r.time.p10_us <= best->time.p90_us;
    if (close || overlaps) near.push_back(i);
  }
  if (near.size() < 2) near.clear();
  return near;
}

std::vector<CandidateResult> evaluate_job(Backend& backend, InstanceCache& cache, const Job& job,
                                          const EventSink& sink) {
  const FamilyUnit* unit = find_family_unit(job.key.family, backend.kind());
  if (unit == nullptr)
    throw Error(fmt::format("the {} backend has no {} implementation", to_string(backend.kind()),
                            family_name(job.key.family)),
                "see `cktune list` for what each backend offers");
  auto event = [&](EventKind k) {
    nlohmann::json e = make_event(k);
    e["job"] = job.id;
    return e;
  };
  PhaseClock clock;
  sink(event(EventKind::Prepare));
  std::unique_ptr<Workload> workload;
  clock.run("prepare", [&] { workload = unit->prepare(job.key, job.protocol, job.seed, backend); });
  sink(event(EventKind::Prepared));
  auto send_result = [&](const CandidateResult& r) {
    nlohmann::json e = event(EventKind::Result);
    e["result"] = to_json(r);
    sink(e);
  };
  // Runs one step of a candidate and turns its errors into the candidate's verdict. A GPU error may have
  // left the device context unusable: it is reported, then rethrown so the parent restarts this worker.
  auto guarded = [&](CandidateResult& r, const auto& step) {
    try {
      step();
    } catch (const GpuError& e) {
      r.verdict = Verdict::Faulted;
      r.reason = e.what();
      send_result(r);
      throw;
    } catch (const NotSupportedError& e) {
      r.verdict = Verdict::NotSupported;
      r.reason = e.what();
    } catch (const Error& e) {
      r.verdict = Verdict::Failed;
      r.reason = e.what();
    }
  };
  auto send_start = [&](const std::string& requested) {
    nlohmann::json e = event(EventKind::Start);
    e["cand"] = requested;
    sink(e);
  };

  // Screening: verify every candidate and time it briefly (finish_screen's two passes); full timing follows for
  // the few that can still win (a kernel 10x slower than the best need not run 100 more times to lose).
  const bool screening = job.screen_factor > 0;
  Protocol screen = job.protocol;
  screen.warmup = 1;  // pass 2 comes back to a candidate after the others ran: one launch to warm up again
  screen.iters = std::max(1, job.screen_iters);
  screen.min_time_ms = 0;
  screen.settle_ms = 0;  // a brief look only; the full timing settles
  Protocol probe = screen;
  probe.iters = 1;
  // Pass 1's probe follows the verification launch, which served as its warm-up (module loaded, caches warm).
  Protocol first_probe = probe;
  first_probe.warmup = 0;
  std::vector<CandidateResult> results;
  std::vector<std::string> requested_names;
  for (const std::string& requested : job.candidates) {
    requested_names.push_back(requested);
    CandidateResult r;
    r.min_bytes = workload->min_bytes();
    std::string name = requested;
    if (requested == kDefaultAlias || requested == kBaselineAlias) {
      r.alias = requested;
      name = requested == kDefaultAlias ? unit->default_instance(job.key, backend)
                                        : unit->baseline_instance(job.key, backend);
    }
    r.name = name.empty() ? requested : name;
    Instance* inst = name.empty() ? nullptr : cache.find(job.key.family, name);
    if (inst == nullptr && name.empty()) {
      r.verdict = Verdict::NotSupported;
      r.reason = requested == kBaselineAlias ? "no vendor library for this family on this device"
                                             : "no default instance for this family on this device";
    } else if (inst == nullptr) {
      r.verdict = Verdict::NotSupported;
      r.unknown_instance = true;
      r.reason = fmt::format("no instance named '{}' on backend {}", name, to_string(backend.kind()));
    } else {
      r.id = inst->desc().id;
      r.provider = inst->desc().provider;
      r.split_k = inst->desc().split_k;
      std::string why = inst->why_not(job.key);
      if (why.empty() && job.skip_redundant) why = inst->redundant(job.key);
      if (!why.empty()) {
        r.verdict = Verdict::NotSupported;
        r.reason = why;
      } else {
        // The watchdog's clock for this candidate starts now, at its first launch.
        send_start(requested);
        Runnable run(*inst, backend, fault_for(job, name));
        guarded(r, [&] {
          clock.run("check", [&] { r.check = run_and_check(run.get(), *workload, job.tolerance); });
          r.verdict = r.check.verdict;
          r.reason = r.check.reason;
          if (r.verdict != Verdict::Passed) return;
          if (screening) {
            // A screen time only decides who is timed fully (and checked then); it never wins.
            clock.run("screen", [&] {
              auto timer = backend.make_timer();
              r.time = measure(run.get(), *workload, *timer, first_probe);
            });
          } else {
            time_and_check(backend, run.get(), *workload, job.protocol, job.tolerance, r, &clock);
          }
        });
      }
    }
    send_result(r);
    results.push_back(std::move(r));
  }

  if (screening) {
    // Pass 2 of the screen: a candidate beyond the cut-off (kProbeFactor x --screen-factor x the best probe) stops at
    // its probe (the slowest kernels of a big shape cost milliseconds a launch); the others get the full screen.
    const double cutoff = screen_cutoff(results, job.screen_factor);
    for (size_t i = 0; i < results.size(); ++i) {
      CandidateResult& r = results[i];
      if (r.verdict != Verdict::Passed || r.time.median_us > cutoff + kScreenHiccupUs) continue;  // stops at its probe
      Runnable run(*cache.find(job.key.family, r.name), backend, fault_for(job, r.name));
      send_start(requested_names[i]);
      guarded(r, [&] {
        clock.run("screen", [&] {
          auto timer = backend.make_timer();
          r.time = finish_screen([&](const Protocol& p) { return measure(run.get(), *workload, *timer, p); },
                                 r.time, probe, screen, cutoff);
        });
      });
      send_result(r);
    }
    // Full timing (checked) for every candidate within screen_factor of the best; if a fully timed one
    // then fails its check, the best moves and candidates screened out before are looked at again.
    std::vector<bool> full(results.size(), false);
    for (;;) {
      const double best = best_passed_us(results);
      std::vector<size_t> next;
      for (size_t i = 0; i < results.size(); ++i)
        if (results[i].verdict == Verdict::Passed && !full[i] && results[i].time.median_us <= best * job.screen_factor)
          next.push_back(i);
      if (next.empty()) break;
      for (size_t i : next) {
        CandidateResult& r = results[i];
        full[i] = true;
        Runnable run(*cache.find(job.key.family, r.name), backend, fault_for(job, r.name));
        send_start(requested_names[i]);
        guarded(r, [&] {
          time_and_check(backend, run.get(), *workload, job.protocol, job.tolerance, r, &clock);
        });
        send_result(r);
      }
    }
    double best = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < results.size(); ++i)
      if (results[i].verdict == Verdict::Passed && full[i]) best = std::min(best, results[i].time.median_us);
    for (size_t i = 0; i < results.size(); ++i) {
      CandidateResult& r = results[i];
      if (r.verdict != Verdict::Passed || full[i]) continue;
      r.screened_out = true;
      r.reason = fmt::format("screened out: {:.2f}x the best time ({} launches)", r.time.median_us / best, r.time.iters);
      send_result(r);
    }
  }

  clock.run("retime", [&] { retime_near_ties(backend, cache, job, *workload, results); });
  const std::string default_name = unit->default_instance(job.key, backend);
  clock.run("parts", [&] { time_parts(backend, cache, job, *workload, results, default_name); });
  Reference reference = std::move(workload->reference);
  clock.run("release", [&] { workload.reset(); });  // the confirmation allocates its own buffers
  clock.run("confirm", [&] { confirm_runaway_winner(backend, *unit, cache, job, reference, results); });
  nlohmann::json changed = nlohmann::json::array();
  for (const auto& r : results)
    if (r.retimed || r.confirmed || r.verdict != Verdict::Passed || !r.part_us.empty()) changed.push_back(to_json(r));
  nlohmann::json done = event(EventKind::Done);
  done["retimed"] = changed;
  done["default"] = default_name;
  done["phases_ms"] = clock.to_json();
  sink(done);
  return results;
}

int worker_main(BackendKind backend_kind, int device_index) {
  // stdout is the event channel; keep everything else on stderr.
  std::mutex out_mu;
  auto send = [&](const nlohmann::json& j) {
    std::string line = j.dump() + "\n";
    std::lock_guard<std::mutex> lk(out_mu);
    const char* p = line.data();
    size_t left = line.size();
    while (left > 0) {
      ssize_t n = ::write(STDOUT_FILENO, p, left);
      if (n < 0) {
        if (errno == EINTR) continue;
        std::_Exit(3);  // parent is gone
      }
      p += n;
      left -= static_cast<size_t>(n);
    }
  };

  std::unique_ptr<Backend> backend;
  try {
    backend = make_backend(backend_kind, device_index);
  } catch (const Error& e) {
    nlohmann::json f = make_event(EventKind::Fatal);
    f["error"] = e.what();
    send(f);
    return 1;
  }
  nlohmann::json ready = make_event(EventKind::Ready);
  ready["device"] = to_json(backend->device());
  ready["pid"] = ::getpid();
  send(ready);

  // Heartbeat: proves the process is alive during long steps (reference computation, big shapes).
  std::atomic<bool> stop{false};
  std::thread beat([&] {
    while (!stop.load()) {
      for (int i = 0; i < 10 && !stop.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (stop.load()) break;
      nlohmann::json hb = make_event(EventKind::Heartbeat);
      hb["progress"] = progress_count();  // the pool's stall watch (PoolOptions::stall_timeout_s)
      send(hb);
    }
  });

  InstanceCache cache(*backend);
  std::string line;
  int rc = 0;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    nlohmann::json msg;
    try {
      msg = nlohmann::json::parse(line);
    } catch (const std::exception& e) {
      nlohmann::json f = make_event(EventKind::Fatal);
      f["error"] = fmt::format("bad command: {}", e.what());
      send(f);
      rc = 1;
      break;
    }
    if (msg.value("cmd", "") == "quit") break;
    Job job = job_from_json(msg.at("job"));
    try {
      evaluate_job(*backend, cache, job, send);
    } catch (const GpuError& e) {
      nlohmann::json f = make_event(EventKind::Fatal);
      f["error"] = e.what();
      send(f);
      rc = 4;
      break;
    } catch (const Error& e) {
      nlohmann::json f = make_event(EventKind::JobFailed);
      f["job"] = job.id;
      f["error"] = e.what();
      send(f);
    }
  }
  stop = true;
  beat.join();
  return rc;
}

}  // namespace cktune
