// Inputs found by fuzzing the worker protocol's JSON readers (tests/fuzz/fuzz_job.cpp, docs/fuzzing.md),
// kept so that they are also checked in CI (where the undefined behaviour itself is not caught).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cktune/core/error.hpp"
#include "cktune/engine/job.hpp"

namespace cktune {
namespace {

nlohmann::json job_json() {
  return nlohmann::json::parse(R"({"id":3,"family":"a8w8_blockscale","cells":["128","7168","2048"],
    "candidates":["a"],"seed":42,"protocol":{"warmup":5,"iters":101,"min_time_ms":1.0,"max_iters":1000,
    "rotate":4,"seed":7},"tolerance":{"rtol":0.01,"atol":0.01,"max_err_ratio":0.05,"max_row_err_ratio":0.5},
    "retime_tolerance":0.02,"retime_rounds":5,"faults":[]})");
}

TEST(JobFuzzRegressions, WellFormedJobReadsBack) {
  const Job job = job_from_json(job_json());
  EXPECT_EQ(job.id, 3);
  EXPECT_EQ(job.protocol.iters, 101);
  EXPECT_EQ(to_json(job_from_json(to_json(job))), to_json(job));
}

// Found by fuzz_job: a float in an integer field ("id": 1e300) was converted to int out of range
// (undefined behaviour inside nlohmann's get<int>). Out-of-range or non-integer values are errors now.
TEST(JobFuzzRegressions, IntegerFieldOutOfRangeIsAnError) {
  for (const auto& bad : {nlohmann::json(1e300), nlohmann::json(3.5), nlohmann::json(4294967296LL),
                          nlohmann::json(-1), nlohmann::json("3")}) {
    nlohmann::json j = job_json();
    j["protocol"]["iters"] = bad;
    if (bad == nlohmann::json(-1)) {
      EXPECT_EQ(job_from_json(j).protocol.iters, -1);  // in range for int: read as is
      j["seed"] = bad;                                   // ... but not for the unsigned seed
    }
    EXPECT_THROW(job_from_json(j), Error) << bad.dump();
  }
}

}  // namespace
}  // namespace cktune
