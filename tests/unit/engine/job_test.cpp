// Job and result JSON (the worker protocol) round-trips, including +inf medians; --inject-fault parsing.
#include "cktune/engine/job.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "cktune/core/error.hpp"
#include "cktune/engine/fault.hpp"

namespace cktune {
namespace {

TEST(ParseFaults, ListOfKindAtInstance) {
  auto f = parse_faults("hang@a,crash@b_c,wrong@x+bug,partial@p");
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0].kind, FaultKind::Hang);
  EXPECT_EQ(f[0].instance, "a");
  EXPECT_EQ(f[1].kind, FaultKind::Crash);
  EXPECT_EQ(f[1].instance, "b_c");
  EXPECT_EQ(f[2].kind, FaultKind::Wrong);
  EXPECT_EQ(f[2].instance, "x+bug");
  EXPECT_EQ(f[3].kind, FaultKind::Partial);
  EXPECT_TRUE(parse_faults("").empty());
  EXPECT_EQ(parse_faults("hang@a,,crash@b").size(), 2u);  // empty items are ignored
}

TEST(ParseFaults, BadItemsThrow) {
  for (const char* bad : {"foo@x", "hang", "hang@", "@x", "none@x", "Hang@x"}) EXPECT_THROW(parse_faults(bad), Error) << bad;
}

TEST(FaultKindText, RoundTrips) {
  for (auto k : {FaultKind::None, FaultKind::Hang, FaultKind::Crash, FaultKind::Wrong, FaultKind::Partial})
    EXPECT_EQ(fault_from_string(to_string(k)), k);
  EXPECT_FALSE(fault_from_string("segv"));
}

TEST(JobJson, RoundTrip) {
  Job j;
  j.id = 42;
  j.key.family = Family::Moe2Stages;
  j.key.cells = {"4", "256", "128", "8", "2", "ActivationType.Silu", "torch.bfloat16", "torch.float8_e4m3fn",
                 "torch.float8_e4m3fn", "QuantType.per_1x128", "1", "0"};
  j.candidates = {"@default", "cpu_moe_per_token_t1"};
  j.seed = 0xFFFFFFFFFFFFull;
  j.protocol.warmup = 2;
  j.protocol.iters = 7;
  j.protocol.min_time_ms = 1.5;
  j.protocol.max_iters = 99;
  j.protocol.rotate = 3;
  j.protocol.seed = 5;
  j.tolerance.rtol = 0.03;
  j.tolerance.atol = 0.04;
  j.tolerance.max_err_ratio = 0.1;
  j.tolerance.max_row_err_ratio = 0.3;
  j.retime_tolerance = 0.05;
  j.retime_rounds = 9;
  j.skip_redundant = true;
  j.faults = {{FaultKind::Hang, "cpu_moe_per_token_t1"}, {FaultKind::Partial, "x"}};
  // Through text, as on the pipe.
  Job r = job_from_json(nlohmann::json::parse(to_json(j).dump()));
  EXPECT_EQ(r.id, j.id);
  EXPECT_EQ(r.key, j.key);
  EXPECT_EQ(r.candidates, j.candidates);
  EXPECT_EQ(r.seed, j.seed);
  EXPECT_EQ(r.protocol.warmup, 2);
  EXPECT_EQ(r.protocol.iters, 7);
  EXPECT_DOUBLE_EQ(r.protocol.min_time_ms, 1.5);
  EXPECT_EQ(r.protocol.max_iters, 99);
  EXPECT_EQ(r.protocol.rotate, 3);
  EXPECT_EQ(r.protocol.seed, 5u);
  EXPECT_DOUBLE_EQ(r.tolerance.rtol, 0.03);
  EXPECT_DOUBLE_EQ(r.tolerance.atol, 0.04);
  EXPECT_DOUBLE_EQ(r.tolerance.max_err_ratio, 0.1);
  EXPECT_DOUBLE_EQ(r.tolerance.max_row_err_ratio, 0.3);
  EXPECT_DOUBLE_EQ(r.retime_tolerance, 0.05);
  EXPECT_EQ(r.retime_rounds, 9);
  EXPECT_TRUE(r.skip_redundant);
  // A job without the field (bench's, or an older writer's) runs every candidate it names.
  auto jj = to_json(j);
  jj.erase("skip_redundant");
  EXPECT_FALSE(job_from_json(jj).skip_redundant);
  ASSERT_EQ(r.faults.size(), 2u);
  EXPECT_EQ(r.faults[0].kind, FaultKind::Hang);
  EXPECT_EQ(r.faults[1].instance, "x");
}

TEST(JobJson, UnknownFamilyThrows) {
  Job j;
  j.key.cells = {"1", "2", "3"};
  auto js = to_json(j);
  js["family"] = "no_such_family";
  EXPECT_THROW(job_from_json(js), Error);
}

TEST(CandidateResultJson, RoundTripWithInfinity) {
  CandidateResult c;
  c.name = "cpu_bs_naive_t1";
  c.alias = "@default";
  c.id = 3;
  c.provider = Provider::CktuneCpu;
  c.split_k = 4;
  c.verdict = Verdict::TimedOut;
  c.reason = "no result 3.0 s after its first launch";
  c.time.median_us = std::numeric_limits<double>::infinity();
  c.time.min_us = 1.25;
  c.time.p10_us = 1.5;
  c.time.p90_us = 2.5;
  c.time.mean_us = 2.0;
  c.time.iters = 11;
  c.time.sets = 4;
  c.check.err_ratio = 0.0125;
  c.check.max_abs_err = std::numeric_limits<double>::infinity();
  c.check.worst_row = 17;
  c.check.worst_row_err_ratio = 0.5;
  c.check.unwritten = 33;
  c.check.stage_err_ratios = {0.0125, 0.0003};  // a fused-MoE pipeline's err1, err2
  c.retimed = true;
  c.first_median_us = 9.75;
  c.min_bytes = 313.9e6;
  std::string text = to_json(c).dump();
  EXPECT_EQ(text.find("inf"), std::string::npos) << "JSON has no infinity literal: " << text;
  CandidateResult r = candidate_result_from_json(nlohmann::json::parse(text));
  EXPECT_EQ(r.name, c.name);
  EXPECT_EQ(r.alias, c.alias);
  EXPECT_EQ(r.id, 3);
  EXPECT_EQ(r.provider, c.provider);
  EXPECT_EQ(r.split_k, 4);
  EXPECT_EQ(r.verdict, Verdict::TimedOut);
  EXPECT_EQ(r.check.verdict, Verdict::TimedOut);
  EXPECT_EQ(r.reason, c.reason);
  EXPECT_TRUE(std::isinf(r.time.median_us) && r.time.median_us > 0);
  EXPECT_DOUBLE_EQ(r.time.min_us, 1.25);
  EXPECT_DOUBLE_EQ(r.time.p10_us, 1.5);
  EXPECT_DOUBLE_EQ(r.time.p90_us, 2.5);
  EXPECT_DOUBLE_EQ(r.time.mean_us, 2.0);
  EXPECT_EQ(r.time.iters, 11);
  EXPECT_EQ(r.time.sets, 4);
  EXPECT_DOUBLE_EQ(r.check.err_ratio, 0.0125);
  EXPECT_TRUE(std::isinf(r.check.max_abs_err));
  EXPECT_EQ(r.check.worst_row, 17);
  EXPECT_DOUBLE_EQ(r.check.worst_row_err_ratio, 0.5);
  EXPECT_EQ(r.check.unwritten, 33);
  EXPECT_EQ(r.check.stage_err_ratios, c.check.stage_err_ratios);
  EXPECT_TRUE(r.retimed);
  EXPECT_DOUBLE_EQ(r.first_median_us, 9.75);
  EXPECT_DOUBLE_EQ(r.min_bytes, 313.9e6);
  // A worker of an older build sends none: the key's bytes stand in.
  nlohmann::json old_worker = nlohmann::json::parse(text);
  old_worker.erase("min_bytes");
  EXPECT_EQ(candidate_result_from_json(old_worker).min_bytes, 0.0);
}

TEST(CandidateResultJson, EveryVerdictRoundTrips) {
  for (auto v : {Verdict::Passed, Verdict::Incorrect, Verdict::NotSupported, Verdict::Failed, Verdict::TimedOut,
                 Verdict::Faulted}) {
    CandidateResult c;
    c.name = "k";
    c.verdict = v;
    EXPECT_EQ(candidate_result_from_json(to_json(c)).verdict, v);
  }
}

}  // namespace
}  // namespace cktune
