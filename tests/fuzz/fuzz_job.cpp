// libFuzzer target: the worker protocol's JSON readers (cktune/engine/job.hpp): job_from_json (what a
// worker reads on stdin) and candidate_result_from_json (what the parent reads back).
//
// The input is one JSON document. nlohmann's own exceptions (a missing field, a wrong type) are the
// expected outcome for a malformed message, like cktune::Error; anything else is a finding. A job that
// reads must also survive to_json -> job_from_json.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "cktune/core/error.hpp"
#include "cktune/engine/job.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  const nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;
  try {
    const cktune::Job job = cktune::job_from_json(j);
    const nlohmann::json back = cktune::to_json(job);
    try {
      const cktune::Job again = cktune::job_from_json(back);
      if (cktune::to_json(again) != back) {
        std::fprintf(stderr, "fuzz_job: to_json/job_from_json round trip changed the job\n");
        std::abort();
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "fuzz_job: a job written by to_json does not read back: %s\n", e.what());
      std::abort();
    }
  } catch (const cktune::Error&) {
  } catch (const nlohmann::json::exception&) {
  }
  try {
    const cktune::CandidateResult r = cktune::candidate_result_from_json(j);
    (void)cktune::to_json(r);
  } catch (const cktune::Error&) {
  } catch (const nlohmann::json::exception&) {
  }
  return 0;
}
