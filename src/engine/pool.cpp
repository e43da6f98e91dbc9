#include "cktune/engine/pool.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "cktune/core/error.hpp"
#include "cktune/core/log.hpp"

namespace cktune {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return fmt::format("exited with code {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return fmt::format("killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  return "ended";
}

void write_all(int fd, const std::string& s) {
  const char* p = s.data();
  size_t left = s.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(fmt::format("cannot send to worker: {}", std::strerror(errno)));
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
}


}  // namespace

WorkerPool::WorkerPool(std::vector<WorkerSpec> workers, PoolOptions options) : options_(std::move(options)) {
  if (options_.exe.empty()) options_.exe = "/proc/self/exe";
  ::signal(SIGPIPE, SIG_IGN);  // a dead worker must not kill the parent through its stdin pipe
  for (auto& spec : workers) {
    Worker w;
    w.label = fmt::format("{}{}", to_string(spec.backend), spec.device);
    w.spec = std::move(spec);
    workers_.push_back(std::move(w));
  }
}

WorkerPool::~WorkerPool() {
  for (auto& w : workers_)
    if (w.pid > 0) kill_worker(w, "pool closing");
}

std::vector<DeviceInfo> WorkerPool::devices() const {
  std::vector<DeviceInfo> out;
  for (const auto& w : workers_)
    if (!w.device.backend.empty()) out.push_back(w.device);
  return out;
}

void WorkerPool::spawn(Worker& w) {
  int to_child[2], from_child[2];
  if (::pipe2(to_child, O_CLOEXEC) != 0 || ::pipe2(from_child, O_CLOEXEC) != 0)
    throw Error(fmt::format("cannot create pipes for a worker: {}", std::strerror(errno)));
  // worker_args are global options (-v): they go before the subcommand, which does not accept them.
  std::vector<std::string> args = {options_.exe};
  args.insert(args.end(), options_.worker_args.begin(), options_.worker_args.end());
  args.insert(args.end(), {"worker", "--backend", std::string(to_string(w.spec.backend)), "--device", std::to_string(w.spec.device)});
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) throw Error(fmt::format("cannot start a worker: {}", std::strerror(errno)));
  if (pid == 0) {
    // Child: a worker dies with its parent (kill -9 of the parent leaves no orphan on the GPU).
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(120);
    ::dup2(to_child[0], STDIN_FILENO);
    ::dup2(from_child[1], STDOUT_FILENO);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(options_.exe.c_str(), argv.data());
    ::_exit(121);
  }
  ::close(to_child[0]);
  ::close(from_child[1]);
  w.pid = pid;
  w.in_fd = to_child[1];
  w.out_fd = from_child[0];
  ::fcntl(w.out_fd, F_SETFL, ::fcntl(w.out_fd, F_GETFL) | O_NONBLOCK);
  w.buffer.clear();
  w.state = WorkerState::Starting;
  w.since = Clock::now();
  w.progress = 0;  // the new process counts from zero
  log().debug("{}: started worker pid {}", w.label, pid);
}

void WorkerPool::kill_worker(Worker& w, const std::string& why) {
  if (w.pid > 0) {
    ::kill(w.pid, SIGKILL);
    int status = 0;
    ::waitpid(w.pid, &status, 0);
    log().debug("{}: worker pid {} stopped ({})", w.label, w.pid, why);
  }
  if (w.in_fd >= 0) ::close(w.in_fd);
  if (w.out_fd >= 0) ::close(w.out_fd);
  w.pid = -1;
  w.in_fd = w.out_fd = -1;
  w.state = WorkerState::Down;
}

void WorkerPool::dispatch(Worker& w) {
  Job job = queue_.front();
  queue_.pop_front();
  auto it = active_.find(job.id);
  if (it == active_.end()) {
    Active a;
    a.original = job;
    a.remaining = job.candidates;
    it = active_.emplace(job.id, std::move(a)).first;
  }
  job.candidates = it->second.remaining;
  nlohmann::json msg = {{"cmd", "job"}, {"job", to_json(job)}};
  try {
    write_all(w.in_fd, msg.dump() + "\n");
  } catch (const Error&) {
    // The worker died between its last event and now; the death handler requeues the job.
    queue_.push_front(it->second.original);
    return;
  }
  w.job = job.id;
  w.candidate.clear();
  w.state = WorkerState::Preparing;
  w.since = Clock::now();
}

void WorkerPool::finish(Worker& w, const PoolCallbacks& cb) {
  auto it = active_.find(*w.job);
  Active& a = it->second;
  JobOutcome out;
  out.job = a.original;
  out.restarts = a.restarts;
  out.worker = w.label;
  out.device = w.device;
  out.default_instance = a.default_instance;
  out.phases_ms = a.phases_ms;
  for (const auto& name : a.original.candidates) {
    auto r = a.results.find(name);
    if (r != a.results.end()) out.results.push_back(r->second);
  }
  active_.erase(it);
  w.job.reset();
  w.candidate.clear();
  w.state = WorkerState::Idle;
  w.since = Clock::now();
  if (cb.on_job_done) cb.on_job_done(out);
}

void WorkerPool::handle_line(Worker& w, const std::string& line, const PoolCallbacks& cb) {
  nlohmann::json ev;
  try {
    ev = nlohmann::json::parse(line);
  } catch (const std::exception&) {
    log().warn("{}: ignoring a malformed line from the worker: {}", w.label, line.substr(0, 200));
    return;
  }
  const std::optional<EventKind> kind = event_kind(ev);
  if (kind == EventKind::Heartbeat) {
    // Alive. The deadlines are per step, so a heartbeat does not extend them; a new progress count restarts only the
    // stall watch.
    if (auto p = ev.find("progress"); p != ev.end() && p->is_number_unsigned() && p->get<std::uint64_t>() != w.progress) {
      w.progress = p->get<std::uint64_t>();
      w.progress_at = Clock::now();
    }
    return;
  }
  if (cb.on_event) cb.on_event(w.label, ev);
  if (kind == EventKind::Ready) {
    w.device = device_from_json(ev.at("device"));
    w.state = WorkerState::Idle;
    w.start_failures = 0;
    w.since = Clock::now();
    return;
  }
  if (kind == EventKind::Fatal) {
    w.last_error = ev.value("error", "unknown error");
    return;  // the process exits next; the death handler takes over
  }
  if (!w.job) return;
  Active& a = active_.at(*w.job);
  if (kind == EventKind::Prepared) {
    w.state = WorkerState::Running;
    w.since = Clock::now();
  } else if (kind == EventKind::Start) {
    w.candidate = ev.value("cand", "");
    w.state = WorkerState::Running;
    w.since = Clock::now();
  } else if (kind == EventKind::Result) {
    CandidateResult r = candidate_result_from_json(ev.at("result"));
    std::string requested = r.alias.empty() ? r.name : r.alias;
    std::erase(a.remaining, requested);
    a.results[requested] = std::move(r);
    w.candidate.clear();
    w.since = Clock::now();
  } else if (kind == EventKind::Done) {
    a.default_instance = ev.value("default", "");
    if (auto p = ev.find("phases_ms"); p != ev.end() && p->is_object())
      for (const auto& [k, v] : p->items())
        if (v.is_number()) a.phases_ms[k] += v.get<double>();
    for (const auto& j : ev.at("retimed")) {
      CandidateResult r = candidate_result_from_json(j);
      std::string requested = r.alias.empty() ? r.name : r.alias;
      a.results[requested] = std::move(r);
    }
    finish(w, cb);
  } else if (kind == EventKind::JobFailed) {
    JobOutcome out;
    out.job = a.original;
    out.failure = ev.value("error", "job failed");
    out.worker = w.label;
    out.device = w.device;
    active_.erase(*w.job);
    w.job.reset();
    w.state = WorkerState::Idle;
    w.since = Clock::now();
    if (cb.on_job_done) cb.on_job_done(out);
  }
}

void WorkerPool::handle_death(Worker& w, const std::string& why, Verdict verdict, const PoolCallbacks& cb) {
  WorkerState state = w.state;
  kill_worker(w, why);
  if (w.job) {
    Active& a = active_.at(*w.job);
    ++a.restarts;
    if (!w.candidate.empty()) {
      // The candidate in flight is the culprit: record it and go on with the next one.
      CandidateResult r;
      r.name = w.candidate;
      if (r.name.front() == '@') r.alias = r.name;
      r.verdict = verdict;
      r.reason = why;
      r.time.median_us = verdict == Verdict::TimedOut ? std::numeric_limits<double>::infinity() : -1.0;
      std::erase(a.remaining, r.name);
      a.results[r.name] = r;
      log().warn("{}: {} {} ({}); restarting the worker", w.label, r.name, to_string(verdict), why);
    } else if (state == WorkerState::Preparing) {
      int n = ++prepare_failures_[*w.job];
      log().warn("{}: worker lost while preparing {} ({})", w.label, a.original.key.to_string(), why);
      if (n >= options_.max_prepare_failures) {
        JobOutcome out;
        out.job = a.original;
        out.failure = fmt::format("preparing inputs failed {} times: {}", n, why);
        out.worker = w.label;
        active_.erase(*w.job);
        w.job.reset();
        if (cb.on_job_done) cb.on_job_done(out);
      }
    } else {
      // Between candidates or while re-timing near-ties: no single candidate to blame; the job resumes.
      log().warn("{}: worker lost while running {} between candidates ({}); restarting the worker", w.label,
                 a.original.key.to_string(), why);
    }
    if (w.job) {
      Job rest = a.original;
      queue_.push_front(rest);  // same id: dispatch() resumes with the remaining candidates
      w.job.reset();
    }
  } else if (state == WorkerState::Starting) {
    ++w.start_failures;
    w.last_error = w.last_error.empty() ? why : w.last_error;
    if (w.start_failures >= options_.max_worker_failures) {
      w.given_up = true;
      log().error("{}: giving up on this worker slot after {} failed starts: {}", w.label, w.start_failures,
                  w.last_error);
      return;
    }
  }
  w.candidate.clear();
  spawn(w);
}

void WorkerPool::pump(const PoolCallbacks& cb, int timeout_ms) {
  std::vector<pollfd> fds;
  std::vector<Worker*> owners;
  for (auto& w : workers_)
    if (w.out_fd >= 0) {
      fds.push_back({w.out_fd, POLLIN, 0});
      owners.push_back(&w);
    }
  int n = ::poll(fds.data(), fds.size(), timeout_ms);
  if (n < 0 && errno != EINTR) throw Error(fmt::format("poll failed: {}", std::strerror(errno)));
  for (size_t i = 0; i < fds.size() && n > 0; ++i) {
    if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    Worker& w = *owners[i];
    char buf[65536];
    bool eof = false;
    while (true) {
      ssize_t got = ::read(w.out_fd, buf, sizeof(buf));
      if (got > 0) {
        w.buffer.append(buf, static_cast<size_t>(got));
        continue;
      }
      if (got == 0) eof = true;
      break;  // EAGAIN or EOF
    }
    size_t start = 0, nl;
    while ((nl = w.buffer.find('\n', start)) != std::string::npos) {
      std::string line = w.buffer.substr(start, nl - start);
      start = nl + 1;
      handle_line(w, line, cb);
    }
    w.buffer.erase(0, start);
    if (eof) {
      int status = 0;
      ::waitpid(w.pid, &status, 0);
      w.pid = -1;  // already reaped
      std::string why = fmt::format("worker {}{}", describe_status(status),
                                    w.last_error.empty() ? "" : ": " + w.last_error);
      handle_death(w, why, Verdict::Faulted, cb);
    }
  }

  // Watchdog: each step has its own deadline, counted from when that step began; a candidate's launches must also keep
  // completing (the stall watch, from its start or its last progress).
  for (auto& w : workers_) {
    if (w.pid < 0 || w.given_up) continue;
    if (const double stall = stall_limit(w); stall > 0 && w.state == WorkerState::Running && !w.candidate.empty()) {
      const double quiet = seconds_since(std::max(w.since, w.progress_at));
      if (quiet > stall) {
        handle_death(w,
                     fmt::format("hung: none of its launches completed for {:.1f} s (--stall-timeout {})", quiet, stall),
                     Verdict::TimedOut, cb);
        continue;
      }
    }
    double limit = w.state == WorkerState::Starting    ? options_.start_timeout_s
                   : w.state == WorkerState::Preparing ? options_.prepare_timeout_s
                   : w.state == WorkerState::Running   ? options_.candidate_timeout_s
                                            : std::numeric_limits<double>::infinity();
    double age = seconds_since(w.since);
    if (age > limit) {
      std::string what = w.state == WorkerState::Running && !w.candidate.empty()
                             ? fmt::format("no result {:.1f} s after its first launch (--timeout {})", age,
                                           options_.candidate_timeout_s)
                             : fmt::format("{} took longer than {:.0f} s", to_string(w.state), limit);
      handle_death(w, what, Verdict::TimedOut, cb);
    }
  }
}

double WorkerPool::stall_limit(const Worker& w) const {
  if (options_.stall_timeout_s >= 0) return options_.stall_timeout_s;
  return w.device.backend == "gpu" ? kGpuStallTimeoutS : 0;
}

std::vector<DeviceInfo> WorkerPool::start(const PoolCallbacks& cb) {
  for (auto& w : workers_)
    if (w.pid < 0 && !w.given_up) spawn(w);
  while (true) {
    bool waiting = false, any_ready = false;
    for (auto& w : workers_) {
      if (w.given_up) continue;
      if (w.state == WorkerState::Starting) waiting = true;
      if (w.state == WorkerState::Idle) any_ready = true;
    }
    if (!waiting) {
      if (!any_ready) {
        std::string why;
        for (auto& w : workers_) why += fmt::format("{}: {}; ", w.label, w.last_error);
        throw Error(fmt::format("no worker could start ({})", why),
                    "run `cktune discover` to check the device, or try --device cpu");
      }
      return devices();
    }
    pump(cb, 200);
  }
}

void WorkerPool::run(std::deque<Job> jobs, const PoolCallbacks& cb) {
  bool started = false;
  for (auto& w : workers_) started = started || w.pid > 0;
  if (!started) start(cb);
  queue_ = std::move(jobs);
  auto last_tick = Clock::now();
  while (!queue_.empty() || !active_.empty()) {
    bool any_alive = false;
    for (auto& w : workers_) {
      if (w.given_up) continue;
      any_alive = true;
      if (w.state == WorkerState::Idle && !w.job && !queue_.empty()) dispatch(w);
    }
    if (!any_alive) {
      std::string why;
      for (auto& w : workers_) why += fmt::format("{}: {}; ", w.label, w.last_error);
      throw Error(fmt::format("every worker failed ({})", why),
                  "run `cktune discover` to check the device, or try --device cpu");
    }
    pump(cb, 200);
    if (cb.on_tick && seconds_since(last_tick) >= 1.0) {
      last_tick = Clock::now();
      std::vector<WorkerStatus> st;
      for (auto& w : workers_) {
        WorkerStatus s;
        s.label = w.label;
        s.state = w.given_up ? WorkerState::Down : w.state;
        s.seconds_in_state = seconds_since(w.since);
        if (w.job) {
          auto it = active_.find(*w.job);
          if (it != active_.end()) {
            // Distinct candidates with a result, plus the one in flight when it has none yet (the full
            // timing pass after screening revisits candidates that already have one).
            const auto& res = it->second.results;
            size_t seen = res.size() + (!w.candidate.empty() && !res.count(w.candidate) ? 1 : 0);
            s.activity = fmt::format("{} cand {}/{}{}", it->second.original.key.to_string(), seen,
                                     it->second.original.candidates.size(),
                                     w.candidate.empty() ? "" : ": " + w.candidate);
          }
        }
        st.push_back(std::move(s));
      }
      cb.on_tick(st);
    }
  }
  // Done: let the workers exit cleanly.
  for (auto& w : workers_) {
    if (w.pid < 0) continue;
    try {
      write_all(w.in_fd, "{\"cmd\":\"quit\"}\n");
    } catch (const Error&) {
    }
    ::close(w.in_fd);
    w.in_fd = -1;
    int status = 0;
    for (int i = 0; i < 50; ++i) {
      if (::waitpid(w.pid, &status, WNOHANG) == w.pid) {
        w.pid = -1;
        break;
      }
      ::usleep(20000);
    }
    if (w.pid > 0) kill_worker(w, "did not quit");
    if (w.out_fd >= 0) ::close(w.out_fd);
    w.out_fd = -1;
    w.state = WorkerState::Down;
  }
}

}  // namespace cktune
