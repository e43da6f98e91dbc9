#include "cktune/core/lock.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <fstream>
#include <iterator>
#include <string>

#include <fmt/format.h>

#include "cktune/core/error.hpp"

namespace cktune {
namespace {

namespace fs = std::filesystem;

std::string temp_target(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / fmt::format("cktune_lock_{}", ::getpid());
  fs::create_directories(dir);
  return (dir / name).string();
}

// Runs `body` in a child process; returns its exit status (the child never returns to gtest).
int in_child(const std::function<int()>& body) {
  pid_t pid = ::fork();
  if (pid == 0) ::_exit(body());
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(OutputLock, ASecondProcessIsRefusedAtOnceAndToldWhoHoldsIt) {
  const std::string target = temp_target("a.csv");
  OutputLock lock(target);
  ASSERT_TRUE(lock.held());
  EXPECT_EQ(lock.lock_path(), target + ".lock");
  const std::string parent_pid = fmt::format("pid {}", ::getpid());
  int rc = in_child([&] {
    try {
      OutputLock second(target);
      return 1;  // must not get it
    } catch (const Error& e) {
      std::string what = e.what();
      if (what.find(parent_pid) == std::string::npos) return 2;
      if (what.find("cktune_tests") == std::string::npos) return 3;  // the holder's command line
      if (what.find(target + ".lock") == std::string::npos) return 4;
      return 0;
    }
  });
  EXPECT_EQ(rc, 0);
}

TEST(OutputLock, TheLockFileRecordsPidAndCommandLine) {
  const std::string target = temp_target("b.csv");
  OutputLock lock(target);
  std::ifstream in(lock.lock_path());
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find(fmt::format("pid {}\n", ::getpid())), std::string::npos) << text;
  EXPECT_NE(text.find("command "), std::string::npos) << text;
}

TEST(OutputLock, ReleasedWhenTheHolderIsKilled) {
  const std::string target = temp_target("c.csv");
  int pipefd[2];
  ASSERT_EQ(::pipe(pipefd), 0);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    OutputLock lock(target);
    (void)!::write(pipefd[1], "x", 1);
    ::pause();  // until killed: no destructor runs, like a crash
    ::_exit(0);
  }
  char c;
  ASSERT_EQ(::read(pipefd[0], &c, 1), 1);
  EXPECT_THROW(OutputLock busy(target), Error);
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  ::close(pipefd[0]);
  ::close(pipefd[1]);
  EXPECT_TRUE(fs::exists(target + ".lock"));  // stale file left by the crash...
  OutputLock again(target);                    // ...is taken over
  EXPECT_TRUE(again.held());
}

TEST(OutputLock, ReleaseRemovesTheFileAndAllowsTheNextWriter) {
  const std::string target = temp_target("d.csv");
  {
    OutputLock lock(target);
    EXPECT_TRUE(fs::exists(lock.lock_path()));
    OutputLock moved(std::move(lock));
    EXPECT_FALSE(lock.held());
    EXPECT_TRUE(moved.held());
  }
  EXPECT_FALSE(fs::exists(target + ".lock"));
  EXPECT_EQ(in_child([&] {
              try {
                OutputLock l(target);
                return 0;
              } catch (const Error&) {
                return 1;
              }
            }),
            0);
}

TEST(OutputLock, CreatesTheTargetsFolder) {
  const std::string target = temp_target("sub/dir/e.csv");
  OutputLock lock(target);
  EXPECT_TRUE(fs::exists(target + ".lock"));
}

}  // namespace
}  // namespace cktune
