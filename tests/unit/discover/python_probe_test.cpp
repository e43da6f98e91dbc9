#include <gtest/gtest.h>

#include <cstdlib>

#include "cktune/discover/process.hpp"
#include "cktune/discover/python_probe.hpp"
#include "cktune/discover/versions.hpp"
#include "test_util.hpp"

namespace cktune::discover {
namespace {

using testing::TempDir;
using testing::write_text;

constexpr const char* kSample = R"({"executable": "/usr/bin/python3", "version": "3.12.3",
  "packages": [
    {"name": "amd-aiter", "version": "0.1.5.post3", "location": "/src/aiter", "editable": true,
     "direct_url": "file:///src/aiter", "vcs_commit": ""},
    {"name": "sglang", "version": "0.5.5", "location": "/usr/lib/python3/dist-packages", "editable": false,
     "direct_url": "", "vcs_commit": ""}],
  "modules": [{"name": "aiter", "path": "/src/aiter/aiter", "error": ""},
              {"name": "sglang", "path": "/usr/lib/python3/dist-packages/sglang", "error": ""}],
  "egg_links": []})";

TEST(PythonProbe, ParsesTheProbesJson) {
  auto py = parse_probe_output(kSample);
  ASSERT_TRUE(py.found) << py.error;
  EXPECT_EQ(py.executable, "/usr/bin/python3");
  ASSERT_NE(py.package("amd-aiter"), nullptr);
  EXPECT_TRUE(py.package("amd-aiter")->editable);
  EXPECT_EQ(py.package("vllm"), nullptr);
  ASSERT_NE(py.module("aiter"), nullptr);
  EXPECT_EQ(py.module("aiter")->path, "/src/aiter/aiter");
}

TEST(PythonProbe, TextPrintedBeforeTheJsonLineIsSkipped) {
  auto py = parse_probe_output("sitecustomize says hello\n{\"executable\": \"/x/python3\", \"version\": \"3.12.1\"}\n");
  ASSERT_TRUE(py.found) << py.error;
  EXPECT_EQ(py.version, "3.12.1");
  EXPECT_TRUE(py.packages.empty());
}

TEST(PythonProbe, GarbageIsAnErrorNotACrash) {
  auto py = parse_probe_output("Traceback (most recent call last):\n  oops");
  EXPECT_FALSE(py.found);
  EXPECT_FALSE(py.error.empty());
  EXPECT_FALSE(parse_probe_output("").found);
  EXPECT_FALSE(parse_probe_output("[1,2]").found);
}

TEST(PythonProbe, EditableAiterIsDevModeAndSglangIsCheckedAgainstItsMinimum) {
  auto py = parse_probe_output(kSample);
  auto a = analyse_aiter(py, /*query_git=*/false, kMinAiterCommit);
  ASSERT_TRUE(a.found);
  EXPECT_EQ(a.package, "amd-aiter");
  EXPECT_EQ(a.version, "0.1.5.post3");
  EXPECT_EQ(a.path, "/src/aiter/aiter");
  EXPECT_TRUE(a.dev_mode);
  EXPECT_NE(a.dev_reason.find("editable"), std::string::npos);
  EXPECT_FALSE(a.git.has_value());

  auto s = package_status(py, "sglang", kMinSglangVersion);
  EXPECT_TRUE(s.installed);
  EXPECT_EQ(s.meets_minimum, std::optional<bool>(false));
  auto v = package_status(py, "vllm");
  EXPECT_FALSE(v.installed);
  EXPECT_FALSE(v.meets_minimum.has_value());
}

TEST(PythonProbe, RegularInstallIsNotDevMode) {
  PythonInfo py;
  py.found = true;
  py.packages.push_back({"amd-aiter", "0.1.4", "/usr/lib/python3.12/site-packages", false, "", "abc"});
  py.modules.push_back({"aiter", "/usr/lib/python3.12/site-packages/aiter", ""});
  auto a = analyse_aiter(py, false, kMinAiterCommit);
  EXPECT_TRUE(a.found);
  EXPECT_FALSE(a.dev_mode);
  EXPECT_EQ(a.vcs_commit, "abc");
}

TEST(PythonProbe, MissingPythonAndMissingAiterAreReported) {
  PythonInfo none;
  none.error = "'python9' not found in PATH";
  auto a = analyse_aiter(none, false, kMinAiterCommit);
  EXPECT_FALSE(a.found);
  EXPECT_NE(a.note.find("python9"), std::string::npos);

  PythonInfo bare;
  bare.found = true;
  bare.executable = "/usr/bin/python3";
  auto b = analyse_aiter(bare, false, kMinAiterCommit);
  EXPECT_FALSE(b.found);
  EXPECT_NE(b.note.find("not installed"), std::string::npos);
}

TEST(PythonProbe, SitePackagesDetection) {
  EXPECT_TRUE(under_site_packages("/usr/lib/python3/dist-packages/aiter"));
  EXPECT_TRUE(under_site_packages("/opt/venv/lib/python3.12/site-packages/aiter"));
  EXPECT_FALSE(under_site_packages("/src/aiter/aiter"));
  EXPECT_FALSE(under_site_packages("/home/me/my-site-packages-notes/aiter"));
}

TEST(PythonProbe, NoInterpreterIsNotFatal) {
  auto py = probe_python("cktune-no-such-python");
  EXPECT_FALSE(py.found);
  EXPECT_NE(py.error.find("not found"), std::string::npos) << py.error;
}

// End to end with the real interpreter: a fake aiter package on PYTHONPATH, inside a git checkout.
TEST(PythonProbe, FindsAnAiterCheckoutOnPythonPath) {
  if (find_in_path("python3").empty()) GTEST_SKIP() << "python3 not installed";
  TempDir tmp;
  write_text(tmp.file("aiter/__init__.py"), "raise RuntimeError('the probe must not import aiter')\n");
  const char* old = std::getenv("PYTHONPATH");
  std::string saved = old ? old : "";
  ::setenv("PYTHONPATH", tmp.path().c_str(), 1);
  auto py = probe_python("python3");
  if (old) ::setenv("PYTHONPATH", saved.c_str(), 1); else ::unsetenv("PYTHONPATH");
  ASSERT_TRUE(py.found) << py.error;
  EXPECT_FALSE(py.version.empty());
  auto a = analyse_aiter(py, /*query_git=*/true, kMinAiterCommit);
  ASSERT_TRUE(a.found) << a.note;
  EXPECT_EQ(a.path, tmp.file("aiter"));
  EXPECT_TRUE(a.dev_mode);
  ASSERT_TRUE(a.git.has_value());
  EXPECT_FALSE(a.git->in_repo);  // no git checkout here
}

}  // namespace
}  // namespace cktune::discover
