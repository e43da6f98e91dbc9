#include "cktune/core/lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <utility>

#include <fmt/format.h>

#include "cktune/core/error.hpp"

namespace cktune {

namespace {

std::string own_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!s.empty() && s.back() == '\0') s.pop_back();
  for (char& c : s)
    if (c == '\0' || c == '\n') c = ' ';
  return s;
}

std::string read_holder(int fd) {
  char buf[4096];
  ssize_t n = ::pread(fd, buf, sizeof(buf) - 1, 0);
  if (n <= 0) return {};
  std::string s(buf, static_cast<size_t>(n));
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  for (char& c : s)
    if (c == '\n') c = ';';
  return s;
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

std::string lock_path_for(const std::string& target) { return target + ".lock"; }

OutputLock::OutputLock(const std::string& target) : lock_path_(lock_path_for(target)) {
  std::filesystem::path parent = std::filesystem::path(lock_path_).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
  }
  // A release unlinks the file, so the file we locked may no longer be the one at the path; then lock
  // again, or two processes could each hold a lock on a different inode.
  for (int attempt = 0; attempt < 100; ++attempt) {
    int fd = ::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
      throw Error(fmt::format("cannot create lock file {}: {}", lock_path_, std::strerror(errno)),
                  "check that the output's folder is writable");
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      int e = errno;
      std::string holder = e == EWOULDBLOCK ? read_holder(fd) : std::string();
      ::close(fd);
      if (e == EWOULDBLOCK)
        throw Error(fmt::format("{} is being written by another cktune process ({}); lock file {}",
                                target, holder.empty() ? "holder not recorded yet" : holder, lock_path_),
                    "wait for that run to finish or stop it; a lock held by a process that has exited is released "
                    "by the kernel, so simply run again");
      throw Error(fmt::format("cannot lock {}: {}", lock_path_, std::strerror(e)));
    }
    struct stat by_fd {}, by_path {};
    if (::fstat(fd, &by_fd) != 0 || ::lstat(lock_path_.c_str(), &by_path) != 0 || by_fd.st_ino != by_path.st_ino ||
        by_fd.st_dev != by_path.st_dev) {
      ::close(fd);
      continue;
    }
    std::string info = fmt::format("pid {}\ncommand {}\nstarted {}\n", ::getpid(), own_command_line(), utc_now());
    // Best effort: the lock itself is what counts, the text only explains a refusal.
    if (::ftruncate(fd, 0) == 0) (void)!::pwrite(fd, info.data(), info.size(), 0);
    fd_ = fd;
    return;
  }
  throw Error(fmt::format("cannot lock {}: the lock file keeps being replaced", lock_path_));
}

OutputLock::~OutputLock() { release(); }

OutputLock::OutputLock(OutputLock&& other) noexcept
    : lock_path_(std::move(other.lock_path_)), fd_(std::exchange(other.fd_, -1)) {}

OutputLock& OutputLock::operator=(OutputLock&& other) noexcept {
  if (this != &other) {
    release();
    lock_path_ = std::move(other.lock_path_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

void OutputLock::release() noexcept {
  if (fd_ < 0) return;
  // Unlink while still holding the lock, so nobody locks the old inode in between.
  ::unlink(lock_path_.c_str());
  ::close(fd_);
  fd_ = -1;
}

}  // namespace cktune
