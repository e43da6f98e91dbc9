#include <gtest/gtest.h>

#include "cktune/discover/git_info.hpp"
#include "cktune/discover/process.hpp"
#include "test_util.hpp"

namespace cktune::discover {
namespace {

using testing::TempDir;
using testing::write_text;

// A repository with two commits: first -> second. Returns {first, second}.
std::pair<std::string, std::string> make_repo(const std::string& dir) {
  auto git = [&](std::vector<std::string> args) {
    std::vector<std::string> argv = {"git", "-C", dir, "-c", "user.name=cktune", "-c", "user.email=cktune@example.com",
                                     "-c", "commit.gpgsign=false"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = run_process(argv, 30);
    EXPECT_TRUE(r.ok()) << r.err;
    return r.out.substr(0, r.out.find('\n'));
  };
  git({"init", "-q"});
  write_text(dir + "/a.txt", "1");
  git({"add", "a.txt"});
  git({"commit", "-q", "-m", "first"});
  std::string first = git({"rev-parse", "HEAD"});
  write_text(dir + "/a.txt", "2");
  git({"commit", "-q", "-am", "second"});
  std::string second = git({"rev-parse", "HEAD"});
  return {first, second};
}

class GitInfoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (find_in_path("git").empty()) GTEST_SKIP() << "git not installed";
  }
};

TEST_F(GitInfoTest, DescendsFromAnOlderCommitAndFromItself) {
  TempDir tmp;
  auto [first, second] = make_repo(tmp.path().string());
  write_text(tmp.file("pkg/__init__.py"), "");
  auto g = git_info(tmp.file("pkg"), first);
  EXPECT_TRUE(g.in_repo);
  EXPECT_EQ(g.commit, second);
  EXPECT_EQ(g.descends, Ancestry::Yes);
  EXPECT_FALSE(g.describe.empty());
  EXPECT_EQ(git_info(tmp.path().string(), second).descends, Ancestry::Yes);
}

TEST_F(GitInfoTest, OlderHeadDoesNotDescendFromNewerCommit) {
  TempDir tmp;
  auto [first, second] = make_repo(tmp.path().string());
  ASSERT_TRUE(run_process({"git", "-C", tmp.path().string(), "checkout", "-q", first}, 30).ok());
  auto g = git_info(tmp.path().string(), second);
  EXPECT_EQ(g.commit, first);
  EXPECT_EQ(g.descends, Ancestry::No);
}

TEST_F(GitInfoTest, CommitMissingFromTheCloneIsUnknownWithAReason) {
  TempDir tmp;
  make_repo(tmp.path().string());
  auto g = git_info(tmp.path().string(), "303a583c89fe392a39cad7e45d616cc43bde3278");
  EXPECT_TRUE(g.in_repo);
  EXPECT_EQ(g.descends, Ancestry::Unknown);
  EXPECT_NE(g.ancestry_note.find("303a583c89fe"), std::string::npos) << g.ancestry_note;
}

TEST_F(GitInfoTest, PlainFolderIsNotACheckout) {
  TempDir tmp;
  auto g = git_info(tmp.path().string(), "303a583c89fe392a39cad7e45d616cc43bde3278");
  EXPECT_FALSE(g.in_repo);
  EXPECT_EQ(g.descends, Ancestry::Unknown);
  EXPECT_TRUE(g.commit.empty());
}

TEST(Ancestry, TextTable) {
  EXPECT_EQ(to_string(Ancestry::Yes), "yes");
  EXPECT_EQ(to_string(Ancestry::No), "no");
  EXPECT_EQ(to_string(Ancestry::Unknown), "unknown");
}

}  // namespace
}  // namespace cktune::discover
