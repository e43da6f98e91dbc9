#include "cktune/tune/evaluate.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <limits>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/core/log.hpp"
#include "cktune/tune/registry.hpp"

namespace cktune {

Instance* InstanceCache::find(Family family, const std::string& name) {
  auto it = by_family_.find(family);
  if (it == by_family_.end()) {
    std::map<std::string, InstancePtr> m;
    for (auto& inst : backend_.instances(family)) {
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
  FaultyInstance(Instance& inner, const Backend& backend, FaultKind kind)
      : Instance(inner.desc()), inner_(inner), backend_(backend), kind_(kind) {}
  std::string why_not(const ProblemKey& key) const override { return inner_.why_not(key); }
  void launch(Workload& workload, int set) override {
    switch (kind_) {
      case FaultKind::Crash:
        std::fflush(nullptr);
        std::raise(SIGSEGV);  // what a wild kernel or driver fault does to the process
        break;
      case FaultKind::Hang:
        backend_.inject_fault(workload, FaultKind::Hang);  // does not return
        break;
      case FaultKind::Wrong:
      case FaultKind::Partial:
        inner_.launch(workload, set);
        backend_.inject_fault(workload, kind_);
        break;
      case FaultKind::None:
        inner_.launch(workload, set);
        break;
    }
  }

 private:
  Instance& inner_;
  const Backend& backend_;
  FaultKind kind_;
};

FaultKind fault_for(const Job& job, const std::string& name) {
  for (const auto& f : job.faults)
    if (f.instance == name) return f.kind;
  return FaultKind::None;
}

// Candidates within `tol` of the best are timed again in interleaved rounds (A B C A B C ...), so that
// clock and thermal drift hit all of them alike; the median of the round medians decides.
void retime_near_ties(const Backend& backend, InstanceCache& cache, const Job& job, Workload& workload,
                      std::vector<CandidateResult>& results) {
  double best = std::numeric_limits<double>::infinity();
  for (const auto& r : results)
    if (r.verdict == Verdict::Passed) best = std::min(best, r.time.median_us);
  if (!std::isfinite(best) || job.retime_rounds <= 0) return;
  std::vector<size_t> near;
  for (size_t i = 0; i < results.size(); ++i)
    if (results[i].verdict == Verdict::Passed && results[i].time.median_us <= best * (1.0 + job.retime_tolerance))
      near.push_back(i);
  if (near.size() < 2) return;
  Protocol round = job.protocol;
  round.warmup = std::max(1, job.protocol.warmup / 2);
  round.iters = std::max(5, job.protocol.iters / job.retime_rounds);
  round.min_time_ms = job.protocol.min_time_ms / job.retime_rounds;
  std::vector<std::vector<double>> medians(near.size());
  for (int rnd = 0; rnd < job.retime_rounds; ++rnd) {
    for (size_t j = 0; j < near.size(); ++j) {
      Instance* inst = cache.find(job.key.family, results[near[j]].name);
      auto timer = backend.make_timer(workload);
      medians[j].push_back(measure(*inst, workload, *timer, round).median_us);
    }
  }
  for (size_t j = 0; j < near.size(); ++j) {
    CandidateResult& r = results[near[j]];
    r.first_median_us = r.time.median_us;
    r.time.median_us = percentile(medians[j], 0.5);
    r.retimed = true;
  }
}

}  // namespace

std::vector<CandidateResult> evaluate_job(const Backend& backend, InstanceCache& cache, const Job& job,
                                          const EventSink& sink) {
  sink({{"ev", "prepare"}, {"job", job.id}});
  std::unique_ptr<Workload> workload = backend.prepare(job.key, job.protocol, job.seed);
  sink({{"ev", "prepared"}, {"job", job.id}});

  // Screening pass: verify every candidate and time it briefly; full timing follows for the few that
  // can still win (a kernel 10x slower than the best need not run 100 more times to lose).
  const bool screening = job.screen_factor > 0;
  Protocol screen = job.protocol;
  screen.warmup = 1;
  screen.iters = std::max(1, job.screen_iters);
  screen.min_time_ms = 0;
  std::vector<CandidateResult> results;
  std::vector<std::string> requested_names;
  for (const std::string& requested : job.candidates) {
    requested_names.push_back(requested);
    CandidateResult r;
    std::string name = requested;
    if (requested == kDefaultAlias || requested == kBaselineAlias) {
      r.alias = requested;
      name = requested == kDefaultAlias ? backend.default_instance(job.key) : backend.baseline_instance(job.key);
    }
    r.name = name.empty() ? requested : name;
    Instance* inst = name.empty() ? nullptr : cache.find(job.key.family, name);
    if (inst == nullptr && name.empty()) {
      r.verdict = Verdict::NotSupported;
      r.reason = requested == kBaselineAlias ? "no vendor library for this family on this device"
                                             : "no default instance for this family on this device";
    } else if (inst == nullptr) {
      r.verdict = Verdict::NotSupported;
      r.reason = fmt::format("no instance named '{}' on backend {}", name, backend.device().backend);
    } else {
      r.id = inst->desc().id;
      r.libtype = inst->desc().libtype;
      r.split_k = inst->desc().split_k;
      std::string why = inst->why_not(job.key);
      if (!why.empty()) {
        r.verdict = Verdict::NotSupported;
        r.reason = why;
      } else {
        // The watchdog's clock for this candidate starts now, at its first launch.
        sink({{"ev", "start"}, {"job", job.id}, {"cand", requested}});
        FaultKind fault = fault_for(job, name);
        FaultyInstance faulty(*inst, backend, fault);
        Instance& run = fault == FaultKind::None ? *inst : static_cast<Instance&>(faulty);
        try {
          r.check = backend.verify(run, *workload, job.tolerance);
          r.verdict = r.check.verdict;
          r.reason = r.check.reason;
          if (r.verdict == Verdict::Passed) {
            auto timer = backend.make_timer(*workload);
            r.time = measure(run, *workload, *timer, screening ? screen : job.protocol);
          }
        } catch (const GpuError& e) {
          // The device context may be unusable now: report, then let the parent restart this worker.
          r.verdict = Verdict::Faulted;
          r.reason = e.what();
          sink({{"ev", "result"}, {"job", job.id}, {"result", to_json(r)}});
          throw;
        } catch (const NotSupportedError& e) {
          r.verdict = Verdict::NotSupported;
          r.reason = e.what();
        } catch (const Error& e) {
          r.verdict = Verdict::Failed;
          r.reason = e.what();
        }
      }
    }
    sink({{"ev", "result"}, {"job", job.id}, {"result", to_json(r)}});
    results.push_back(std::move(r));
  }

  if (screening) {
    double best = std::numeric_limits<double>::infinity();
    for (const auto& r : results)
      if (r.verdict == Verdict::Passed) best = std::min(best, r.time.median_us);
    for (size_t i = 0; i < results.size(); ++i) {
      CandidateResult& r = results[i];
      if (r.verdict != Verdict::Passed) continue;
      if (r.time.median_us > best * job.screen_factor) {
        r.reason = fmt::format("screened out: {:.2f}x the best screen time ({} launches)", r.time.median_us / best,
                               screen.iters);
        sink({{"ev", "result"}, {"job", job.id}, {"result", to_json(r)}});
        continue;
      }
      Instance* inst = cache.find(job.key.family, r.name);
      FaultKind fault = fault_for(job, r.name);
      FaultyInstance faulty(*inst, backend, fault);
      Instance& run = fault == FaultKind::None ? *inst : static_cast<Instance&>(faulty);
      sink({{"ev", "start"}, {"job", job.id}, {"cand", requested_names[i]}});
      auto timer = backend.make_timer(*workload);
      try {
        r.time = measure(run, *workload, *timer, job.protocol);
      } catch (const GpuError& e) {
        r.verdict = Verdict::Faulted;
        r.reason = e.what();
        sink({{"ev", "result"}, {"job", job.id}, {"result", to_json(r)}});
        throw;
      } catch (const Error& e) {
        r.verdict = Verdict::Failed;
        r.reason = e.what();
      }
      sink({{"ev", "result"}, {"job", job.id}, {"result", to_json(r)}});
    }
  }

  retime_near_ties(backend, cache, job, *workload, results);
  nlohmann::json retimed = nlohmann::json::array();
  for (const auto& r : results)
    if (r.retimed) retimed.push_back(to_json(r));
  sink({{"ev", "done"}, {"job", job.id}, {"retimed", retimed}, {"default", backend.default_instance(job.key)}});
  return results;
}

int worker_main(const std::string& backend_name, int device_index) {
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
    backend = make_backend(backend_name, device_index);
  } catch (const Error& e) {
    send({{"ev", "fatal"}, {"error", e.what()}});
    return 1;
  }
  const DeviceInfo& d = backend->device();
  send({{"ev", "ready"},
        {"device",
         {{"backend", d.backend}, {"name", d.name}, {"gfx", d.gfx}, {"cu_num", d.cu_num}, {"index", d.index},
          {"driver", d.driver}, {"runtime", d.runtime}}},
        {"pid", ::getpid()}});

  // Heartbeat: proves the process is alive during long steps (reference computation, big shapes).
  std::atomic<bool> stop{false};
  std::thread beat([&] {
    while (!stop.load()) {
      for (int i = 0; i < 10 && !stop.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (!stop.load()) send({{"ev", "hb"}});
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
      send({{"ev", "fatal"}, {"error", fmt::format("bad command: {}", e.what())}});
      rc = 1;
      break;
    }
    if (msg.value("cmd", "") == "quit") break;
    Job job = job_from_json(msg.at("job"));
    try {
      evaluate_job(*backend, cache, job, send);
    } catch (const GpuError& e) {
      send({{"ev", "fatal"}, {"error", e.what()}});
      rc = 4;
      break;
    } catch (const Error& e) {
      send({{"ev", "job_failed"}, {"job", job.id}, {"error", e.what()}});
    }
  }
  stop = true;
  beat.join();
  return rc;
}

}  // namespace cktune
