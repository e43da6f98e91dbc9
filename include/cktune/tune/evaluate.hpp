#pragma once
// Evaluating a job inside one process: prepare inputs, then for each candidate ask, verify, time;
// finally re-time near-ties interleaved. Used by the worker process and by in-process runs.
#include <functional>
#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cktune/tune/backend.hpp"
#include "cktune/tune/job.hpp"

namespace cktune {

// Receives the events of an evaluation ({"ev":"start"|"result"|"retimed"|"done", ...}).
using EventSink = std::function<void(const nlohmann::json&)>;

// Instances of one backend, created once per family and looked up by name.
class InstanceCache {
 public:
  explicit InstanceCache(const Backend& backend) : backend_(backend) {}
  Instance* find(Family family, const std::string& name);

 private:
  const Backend& backend_;
  std::map<Family, std::map<std::string, InstancePtr>> by_family_;
};

// Returns the final results (after re-timing), in candidate order.
std::vector<CandidateResult> evaluate_job(const Backend& backend, InstanceCache& cache, const Job& job,
                                          const EventSink& sink);

// Worker process main loop: jobs in on stdin, events out on stdout (one JSON object per line).
int worker_main(const std::string& backend_name, int device_index);

}  // namespace cktune
