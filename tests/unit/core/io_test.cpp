#include "cktune/core/io.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <functional>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cktune/core/error.hpp"

namespace cktune {
namespace {

namespace fs = std::filesystem;

// A fresh folder per test, removed at the end.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           fmt::format("cktune_io_{}_{}", ::getpid(), ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void spit(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary);
  out << data;
}

std::string gzip_bytes(const std::string& data) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, data.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

std::set<std::string> names_in(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

TEST(WriteFileAtomic, WritesAndLeavesNoTemporary) {
  TempDir d;
  write_file_atomic(d / "out.csv", "a\n");
  write_file_atomic(d / "out.csv", "b\n");
  EXPECT_EQ(slurp(d / "out.csv"), "b\n");
  EXPECT_EQ(names_in(d.path), std::set<std::string>{"out.csv"});
}

TEST(WriteFileAtomic, RefusesAFifoAndLeavesItAFifo) {
  TempDir d;
  const std::string fifo = d / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string err = error_of([&] { write_file_atomic(fifo, "data\n"); });
  EXPECT_NE(err.find("FIFO"), std::string::npos) << err;
  EXPECT_NE(err.find(fifo), std::string::npos) << err;
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(names_in(d.path), std::set<std::string>{"pipe"});  // no temporary left behind
}

TEST(WriteFileAtomic, RefusesACharacterDevice) {
  // Never /dev/null itself: the test must not be able to destroy it if the code regresses while run as
  // root. A symlink to it is refused the same way (stat follows it), and the symlink must survive.
  TempDir d;
  const std::string link = d / "null_link";
  fs::create_symlink("/dev/null", link);
  std::string err = error_of([&] { write_file_atomic(link, "x"); });
  EXPECT_NE(err.find("character device"), std::string::npos) << err;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_THROW(check_output_path(link), Error);
  EXPECT_NO_THROW(check_output_path(d / "absent.csv"));
  EXPECT_NO_THROW(check_output_path("-"));
}

TEST(WriteFileAtomic, RefusesAFolder) {
  TempDir d;
  fs::create_directories(d / "sub");
  EXPECT_NE(error_of([&] { write_file_atomic(d / "sub", "x"); }).find("a folder"), std::string::npos);
  EXPECT_TRUE(fs::is_directory(d / "sub"));
}

TEST(WriteFileAtomic, NeverFollowsASymlinkPlantedAtAPredictableTemporaryName) {
  TempDir d;
  const std::string victim = d / "victim.txt";
  spit(victim, "precious\n");
  const std::string out = d / "out.csv";
  // Every name an older cktune (or a guess) would use: OUT.tmp.PID and variants around our pid.
  std::vector<std::string> planted;
  for (int delta = -2; delta <= 2; ++delta) {
    const int pid = ::getpid() + delta;
    for (std::string name : {fmt::format("{}.tmp.{}", out, pid), d / fmt::format(".out.csv.tmp.{}", pid),
                             fmt::format("{}.{}.tmp", out, pid)}) {
      fs::create_symlink(victim, name);
      planted.push_back(name);
    }
  }
  write_file_atomic(out, "new content\n");
  EXPECT_EQ(slurp(victim), "precious\n");
  EXPECT_EQ(slurp(out), "new content\n");
  EXPECT_FALSE(fs::is_symlink(out));
  for (const auto& p : planted) EXPECT_TRUE(fs::is_symlink(p)) << p;
}

TEST(WriteFileAtomic, KeepsThePermissionsOfTheFileItReplaces) {
  TempDir d;
  const std::string out = d / "out.csv";
  spit(out, "old\n");
  fs::permissions(out, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                           fs::perms::group_write);
  write_file_atomic(out, "new\n");
  EXPECT_EQ(fs::status(out).permissions() & fs::perms::group_write, fs::perms::group_write);
}

TEST(ReadInput, GzipCutShortIsAnErrorNamingFileAndOffset) {
  TempDir d;
  std::string text;
  for (int i = 0; i < 2000; ++i) text += fmt::format("{},7168,2112\n", i + 1);
  const std::string gz = gzip_bytes(text);
  const std::string full = d / "t.csv.gz";
  spit(full, gz);
  EXPECT_EQ(read_input(full), text);
  // Cut inside the deflate data, and cut only the 8-byte trailer (CRC + length): both are incomplete.
  for (size_t keep : {gz.size() / 2, gz.size() - 8, gz.size() - 1}) {
    const std::string cut = d / fmt::format("cut{}.csv.gz", keep);
    spit(cut, gz.substr(0, keep));
    std::string err = error_of([&] { (void)read_input(cut); });
    EXPECT_NE(err.find(cut), std::string::npos) << err;
    EXPECT_NE(err.find("cut short at byte"), std::string::npos) << err;
  }
}

TEST(ReadInput, GzipWithABadChecksumIsAnError) {
  TempDir d;
  std::string gz = gzip_bytes("M,N,K\n1,2,3\n");
  gz[gz.size() - 6] ^= 0x5a;  // inside the CRC32 of the trailer
  spit(d / "bad.gz", gz);
  EXPECT_NE(error_of([&] { (void)read_input(d / "bad.gz"); }).find("damaged"), std::string::npos);
}

TEST(ReadInput, ConcatenatedGzipMembersAreReadWhole) {
  TempDir d;
  spit(d / "two.gz", gzip_bytes("a\n") + gzip_bytes("b\n"));
  EXPECT_EQ(read_input(d / "two.gz"), "a\nb\n");
}

TEST(ReadInput, LineLimitNamesTheLine) {
  TempDir d;
  const std::string path = d / "t.csv";
  spit(path, "M,N,K\n" + std::string(100, '1') + "\n" + std::string(101, '2') + "\n");
  ReadOptions o;
  o.max_line_bytes = 100;
  try {
    (void)read_input(path, o);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), 3u);
    EXPECT_NE(std::string(e.what()).find("limit of 100 bytes"), std::string::npos) << e.what();
    EXPECT_NE(e.hint().find("CKTUNE_MAX_LINE_BYTES"), std::string::npos);
  }
  o.max_line_bytes = 101;
  EXPECT_NO_THROW((void)read_input(path, o));
  // CR-only and CRLF line ends count as line breaks for the limit too.
  spit(path, std::string(60, 'a') + "\r" + std::string(60, 'b') + "\r\n" + std::string(60, 'c'));
  o.max_line_bytes = 60;
  EXPECT_NO_THROW((void)read_input(path, o));
}

TEST(ReadInput, TotalLimitStopsEndlessInput) {
  TempDir d;
  spit(d / "big", std::string(5000, 'x'));
  ReadOptions o;
  o.max_bytes = 4096;
  EXPECT_NE(error_of([&] { (void)read_input(d / "big", o); }).find("more than 4096 bytes"), std::string::npos);
}

TEST(ReadInput, RefusesDevicesButReadsDevNullAsEmpty) {
  std::string err = error_of([] { (void)read_input("/dev/zero"); });
  EXPECT_NE(err.find("/dev/zero: is a character device"), std::string::npos) << err;
  EXPECT_EQ(read_input("/dev/null"), "");
  EXPECT_NE(error_of([] { (void)read_input("/tmp"); }).find("a folder"), std::string::npos);
}

TEST(ReadInput, AFifoThatNeverEndsIsBounded) {
  TempDir d;
  const std::string fifo = d / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int fd = ::open(fifo.c_str(), O_WRONLY);
    std::string block(1 << 16, 'z');
    while (fd >= 0 && ::write(fd, block.data(), block.size()) > 0) {
    }
    ::_exit(0);
  }
  ReadOptions o;
  o.max_line_bytes = 1 << 20;
  std::string err = error_of([&] { (void)read_input(fifo, o); });
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  EXPECT_NE(err.find("line longer than the limit"), std::string::npos) << err;
}

}  // namespace
}  // namespace cktune
