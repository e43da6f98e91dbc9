#include <gtest/gtest.h>

#include <chrono>

#include "cktune/discover/process.hpp"

namespace cktune::discover {
namespace {

TEST(Process, CapturesOutputAndExitCode) {
  auto r = run_process({"sh", "-c", "echo out; echo err >&2; exit 3"}, 10);
  EXPECT_TRUE(r.started);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_FALSE(r.ok());
}

TEST(Process, MissingProgramIsReportedNotThrown) {
  auto r = run_process({"cktune-no-such-program-xyz"}, 5);
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.error.find("not found"), std::string::npos) << r.error;
}

TEST(Process, TimeoutKillsTheChildAndItsChildren) {
  auto t0 = std::chrono::steady_clock::now();
  // The grandchild keeps the pipe open; killing the process group must end it too.
  auto r = run_process({"sh", "-c", "sleep 30 & sleep 30"}, 0.5);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.ok());
  EXPECT_LT(s, 5.0);
}

TEST(Process, NoShellIsInvolved) {
  auto r = run_process({"echo", "$HOME;", "a b"}, 5);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.out, "$HOME; a b\n");
}

TEST(Process, OutputIsCapped) {
  auto r = run_process({"sh", "-c", "head -c 100000 /dev/zero"}, 10, 1000);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.out.size(), 1000u);
}

TEST(Process, FindInPath) {
  EXPECT_FALSE(find_in_path("sh").empty());
  EXPECT_EQ(find_in_path("cktune-no-such-program-xyz"), "");
  EXPECT_EQ(find_in_path("/bin/sh"), "/bin/sh");
}

}  // namespace
}  // namespace cktune::discover
