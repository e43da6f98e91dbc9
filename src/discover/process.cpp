// fork/exec with pipes and poll(): the child runs in its own process group so a timeout can end it
// together with anything it started (python3 -> subprocesses).
#include "cktune/discover/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

namespace cktune::discover {

namespace {
bool is_executable(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}
}  // namespace

std::string find_in_path(const std::string& program) {
  if (program.empty()) return {};
  if (program.find('/') != std::string::npos) return is_executable(program) ? program : std::string();
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string_view dir = std::string_view(dirs).substr(start, end - start);
    std::string candidate = fmt::format("{}/{}", dir.empty() ? std::string_view(".") : dir, program);
    if (is_executable(candidate)) return candidate;
    start = end + 1;
  }
  return {};
}

ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s, size_t max_output) {
  ProcessResult r;
  if (argv.empty()) {
    r.error = "no program given";
    return r;
  }
  std::string exe = find_in_path(argv[0]);
  if (exe.empty()) {
    r.error = fmt::format("'{}' not found in PATH", argv[0]);
    return r;
  }
  int out_pipe[2] = {-1, -1};
  int err_pipe[2] = {-1, -1};
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) {
    r.error = fmt::format("pipe: {}", std::strerror(errno));
    close_fd(out_pipe[0]), close_fd(out_pipe[1]), close_fd(err_pipe[0]), close_fd(err_pipe[1]);
    return r;
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  pid_t pid = ::fork();
  if (pid < 0) {
    r.error = fmt::format("fork: {}", std::strerror(errno));
    close_fd(out_pipe[0]), close_fd(out_pipe[1]), close_fd(err_pipe[0]), close_fd(err_pipe[1]);
    return r;
  }
  if (pid == 0) {
    // Child: own process group, stdin from /dev/null, stdout/stderr into the pipes.
    ::setpgid(0, 0);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
    ::dup2(out_pipe[1], STDOUT_FILENO);
    ::dup2(err_pipe[1], STDERR_FILENO);
    ::execv(exe.c_str(), args.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from the parent, so the group exists before any kill below
  r.started = true;
  close_fd(out_pipe[1]);
  close_fd(err_pipe[1]);

  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  int open_fds = 2;
  char buf[8192];
  while (open_fds > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      break;
    }
    int n = ::poll(fds, 2, static_cast<int>(left.count()));
    if (n < 0) {
      if (errno == EINTR) continue;
      r.error = fmt::format("poll: {}", std::strerror(errno));
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        size_t room = max_output > sinks[i]->size() ? max_output - sinks[i]->size() : 0;
        sinks[i]->append(buf, std::min(room, static_cast<size_t>(got)));
      } else if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) {
        close_fd(fds[i].fd);
        --open_fds;
      }
    }
  }
  if (r.timed_out || !r.error.empty()) ::kill(-pid, SIGKILL);
  for (auto& f : fds) close_fd(f.fd);  // the read ends (the loop may have closed some already)

  // The pipes are closed once the child exits, but a grandchild may hold them: wait with the deadline.
  int status = 0;
  while (true) {
    pid_t w = ::waitpid(pid, &status, r.timed_out ? 0 : WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) {
      r.error = fmt::format("waitpid: {}", std::strerror(errno));
      return r;
    }
    if (w == 0) {
      if (std::chrono::steady_clock::now() >= deadline) {
        r.timed_out = true;
        ::kill(-pid, SIGKILL);
      } else {
        ::usleep(2000);
      }
    }
  }
  if (WIFEXITED(status)) {
    r.exit_code = WEXITSTATUS(status);
    if (r.exit_code == 127 && r.out.empty() && r.err.empty()) r.error = fmt::format("could not execute {}", exe);
  } else if (WIFSIGNALED(status) && !r.timed_out) {
    r.error = fmt::format("killed by signal {}", WTERMSIG(status));
  }
  if (r.timed_out) r.error = fmt::format("no answer within {:g} s (killed)", timeout_s);
  return r;
}

}  // namespace cktune::discover
