#pragma once
// Worker processes, one per device, fed from one dynamic queue. The parent is the only writer of
// outputs; workers only report. A watchdog per candidate starts its clock when the worker says the
// candidate's first launch is about to happen (not when the job was queued); on a hang, a GPU fault
// or a crash the worker is killed and respawned and the job goes on with its next candidate.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cktune/core/names.hpp"
#include "cktune/engine/backend.hpp"
#include "cktune/engine/job.hpp"

namespace cktune {

struct WorkerSpec {
  BackendKind backend = BackendKind::Cpu;
  int device = 0;       // device index as the worker sees it
};

struct PoolOptions {
  std::string exe;                      // the cktune binary to start workers from (default: this process)
  double candidate_timeout_s = 600;     // from a candidate's first launch to its result
  double prepare_timeout_s = 1800;      // input generation and reference
  double start_timeout_s = 120;         // worker start-up (device init)
  // A candidate whose device work shows no progress (measure.hpp: progress_count) for this long is hung, however
  // long its --timeout: < 0 = kGpuStallTimeoutS on GPU workers and off on CPU ones (whose launches run on the host and
  // grow with the shape), 0 = off.
  double stall_timeout_s = -1;
  int max_worker_failures = 3;          // consecutive start failures before a worker slot is given up
  int max_prepare_failures = 2;         // a job whose preparation kills the worker this often fails
  std::vector<std::string> worker_args;  // e.g. {"-v"}
};

inline constexpr double kGpuStallTimeoutS = 60;

struct JobOutcome {
  Job job;                                // as first submitted (all candidates)
  std::vector<CandidateResult> results;   // one per candidate that got a result, in candidate order
  int restarts = 0;                       // worker restarts this job caused
  std::string failure;                    // non-empty when the job could not be evaluated at all
  std::string worker;                     // label of the worker that finished it ("gpu0")
  std::string default_instance;           // the backend's untuned default for this key
  std::map<std::string, double> phases_ms;  // the worker's wall time by phase (prepare, check, screen, ...)
  DeviceInfo device;
};

enum class WorkerState { Starting, Idle, Preparing, Running, Down };
inline constexpr EnumName<WorkerState> kWorkerStateNames[] = {
    {WorkerState::Starting, "starting"}, {WorkerState::Idle, "idle"},   {WorkerState::Preparing, "preparing"},
    {WorkerState::Running, "running"},   {WorkerState::Down, "down"}};
constexpr std::string_view to_string(WorkerState s) { return enum_text(kWorkerStateNames, s); }

// What each worker is doing, for progress lines.
struct WorkerStatus {
  std::string label;
  WorkerState state = WorkerState::Down;
  std::string activity;    // "M=1,N=2112,K=7168 cand 3/20: <name>"
  double seconds_in_state = 0;
};

struct PoolCallbacks {
  std::function<void(const JobOutcome&)> on_job_done;
  std::function<void(const std::vector<WorkerStatus>&)> on_tick;  // about once a second
  std::function<void(const std::string& worker, const nlohmann::json& event)> on_event;
};

class WorkerPool {
 public:
  WorkerPool(std::vector<WorkerSpec> workers, PoolOptions options);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Starts every worker and waits until each is ready or given up; returns the devices that answered.
  // Throws Error when none starts.
  std::vector<DeviceInfo> start(const PoolCallbacks& callbacks = {});
  // Runs every job (front of the queue first) and returns when all are done. Calls start() if needed.
  void run(std::deque<Job> jobs, const PoolCallbacks& callbacks);
  // Devices reported by the workers that started.
  std::vector<DeviceInfo> devices() const;

 private:
  using Clock = std::chrono::steady_clock;
  struct Worker {
    WorkerSpec spec;
    std::string label;
    pid_t pid = -1;
    int in_fd = -1;   // our end of the worker's stdin
    int out_fd = -1;  // our end of the worker's stdout
    std::string buffer;
    WorkerState state = WorkerState::Down;
    Clock::time_point since{};
    std::uint64_t progress = 0;     // the worker's last reported progress count
    Clock::time_point progress_at{};  // when it last changed
    std::optional<int> job;   // job id in flight
    std::string candidate;    // candidate in flight
    int start_failures = 0;
    bool given_up = false;
    std::string last_error;
    DeviceInfo device;
  };
  struct Active {
    Job original;
    std::map<std::string, CandidateResult> results;
    std::vector<std::string> remaining;
    std::string default_instance;
    std::map<std::string, double> phases_ms;
    int restarts = 0;
  };
  void spawn(Worker& w);
  void kill_worker(Worker& w, const std::string& why);
  void handle_line(Worker& w, const std::string& line, const PoolCallbacks& cb);
  void handle_death(Worker& w, const std::string& why, Verdict verdict, const PoolCallbacks& cb);
  void finish(Worker& w, const PoolCallbacks& cb);
  void dispatch(Worker& w);
  void pump(const PoolCallbacks& cb, int timeout_ms);
  double stall_limit(const Worker& w) const;  // seconds; 0 = no stall watch for this worker

  PoolOptions options_;
  std::vector<Worker> workers_;
  std::deque<Job> queue_;
  std::map<int, Active> active_;  // by job id
  std::map<int, int> prepare_failures_;
};

}  // namespace cktune
