#include "cktune/core/io.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "cktune/core/error.hpp"

namespace cktune {

namespace fs = std::filesystem;

namespace {

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Random suffix for temporaries: a name nobody can plant a symlink at in advance.
std::string random_suffix() {
  unsigned char bytes[8];
  size_t got = 0;
  while (got < sizeof(bytes)) {
    ssize_t n = ::getrandom(bytes + got, sizeof(bytes) - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      // No entropy source: fall back to something unique per process and call; O_EXCL still protects.
      static unsigned counter = 0;
      return fmt::format("{:x}{:x}{:x}", ::getpid(), ++counter, reinterpret_cast<std::uintptr_t>(&got));
    }
    got += static_cast<size_t>(n);
  }
  std::string out;
  for (unsigned char b : bytes) out += fmt::format("{:02x}", b);
  return out;
}

void fsync_folder(const fs::path& folder) {
  // The rename is only durable once the folder's entry is on disk.
  int dfd = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) throw Error(fmt::format("cannot open folder {} to flush it: {}", folder.string(), std::strerror(errno)));
  int rc = ::fsync(dfd);
  int e = errno;
  ::close(dfd);
  // Some file systems (e.g. certain network mounts) cannot fsync a folder; that is not a write failure.
  if (rc != 0 && e != EINVAL && e != ENOTSUP)
    throw Error(fmt::format("cannot flush folder {}: {}", folder.string(), std::strerror(e)));
}

std::uint64_t env_limit(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  errno = 0;
  unsigned long long n = std::strtoull(v, &end, 10);
  if (errno != 0 || *end != '\0' || n == 0) return fallback;
  return n;
}

bool is_dev_null(const struct stat& st) { return S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3); }

}  // namespace

void check_output_path(const std::string& path) {
  if (path == "-") return;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return;  // absent (or unreachable: the write reports it)
  if (S_ISREG(st.st_mode)) return;
  throw Error(fmt::format("refusing to write {}: it exists and is {}, not a regular file", path, kind_of(st.st_mode)),
              "outputs are replaced by rename, which would destroy it; pass the path of a (new) regular file, or "
              "'-' for standard output");
}

void write_file_atomic(const std::string& path, std::string_view content) {
  check_output_path(path);
  fs::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) {
    fs::create_directories(target.parent_path(), ec);
    if (ec) throw Error(fmt::format("cannot create folder {}: {}", target.parent_path().string(), ec.message()));
  }
  // The temporary lives beside the target (same file system, so rename is atomic), hidden, with a random
  // name, created exclusively and never through a symlink.
  const fs::path folder = target.parent_path();
  const std::string base = target.filename().string();
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = (folder / fmt::format(".{}.{}.tmp", base, random_suffix())).string();
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0)
    throw Error(fmt::format("cannot create a temporary file beside {}: {}", path, std::strerror(errno)),
                "check the folder exists and is writable");
  auto fail = [&](const std::string& what, int e) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw Error(fmt::format("{}: {}", what, std::strerror(e)));
  };
  // Keep the permissions of the file being replaced (a table made group-writable stays so).
  struct stat old {};
  if (::stat(path.c_str(), &old) == 0 && S_ISREG(old.st_mode)) (void)::fchmod(fd, old.st_mode & 07777);
  const char* p = content.data();
  size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(fmt::format("cannot write {}", tmp), errno);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) fail(fmt::format("cannot flush {}", tmp), errno);
  if (::close(fd) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    throw Error(fmt::format("cannot flush {}: {}", tmp, std::strerror(e)));
  }
  // Checked again just before the rename: the target may have been replaced by a device or FIFO meanwhile.
  try {
    check_output_path(path);
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    throw Error(fmt::format("cannot rename {} to {}: {}", tmp, path, std::strerror(e)));
  }
  fsync_folder(folder);
}

std::uint64_t default_max_line_bytes() { return env_limit("CKTUNE_MAX_LINE_BYTES", std::uint64_t{1} << 20); }

std::uint64_t default_max_input_bytes() { return env_limit("CKTUNE_MAX_INPUT_BYTES", std::uint64_t{4} << 30); }

InputStream::InputStream(const std::string& path) : name_(path == "-" ? "<stdin>" : path) {
  int fd = -1;
  if (path == "-") {
    fd = ::dup(STDIN_FILENO);
  } else {
    // A FIFO blocks here until its writer opens it, as for any reader of a named pipe.
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  }
  if (fd < 0)
    throw Error(fmt::format("cannot open {}: {}", name_, std::strerror(errno)),
                path == "-" ? "" : "check the path; use - to read standard input");
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    throw Error(fmt::format("cannot read {}: {}", name_, std::strerror(e)));
  }
  // Devices never end (/dev/zero, /dev/urandom); /dev/null is harmless, and a terminal on stdin is a person
  // typing (bounded by the limits below).
  const bool allowed_device = is_dev_null(st) || (path == "-" && ::isatty(fd));
  if (S_ISDIR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISSOCK(st.st_mode) || (S_ISCHR(st.st_mode) && !allowed_device)) {
    ::close(fd);
    throw Error(fmt::format("{}: is {}, not a file", name_, kind_of(st.st_mode)),
                "pass a regular file, a pipe or '-' with a file on standard input");
  }
  gzFile gz = ::gzdopen(fd, "rb");
  if (!gz) {
    ::close(fd);
    throw Error(fmt::format("cannot read {}: out of memory", name_));
  }
  ::gzbuffer(gz, 1u << 18);
  gz_ = gz;
}

InputStream::~InputStream() {
  if (gz_) ::gzclose_r(static_cast<gzFile>(gz_));
}

size_t InputStream::read(char* buf, size_t n) {
  gzFile gz = static_cast<gzFile>(gz_);
  const unsigned want = static_cast<unsigned>(std::min<size_t>(n, INT_MAX / 2));
  int got = ::gzread(gz, buf, want);
  int errnum = Z_OK;
  const char* msg = ::gzerror(gz, &errnum);
  // zlib reports a stream cut before its trailer as Z_BUF_ERROR ("unexpected end of file") and a bad
  // CRC or length as Z_DATA_ERROR; either way the data is not what was written.
  if (errnum == Z_BUF_ERROR || errnum == Z_DATA_ERROR) {
    const long long at = static_cast<long long>(::gzoffset(gz));
    throw Error(fmt::format("{}: compressed data is {} at byte {} ({}): the file is truncated or corrupt", name_,
                            errnum == Z_BUF_ERROR ? "cut short" : "damaged", at, msg ? msg : "gzip error"),
                "copy the file again once it is complete (`gzip -t FILE` checks it); to use what is there, "
                "`zcat FILE > part` and pass `part`");
  }
  if (got < 0 || (errnum != Z_OK && errnum != Z_STREAM_END))
    throw Error(fmt::format("cannot read {}: {}", name_, errnum == Z_ERRNO ? std::strerror(errno) : (msg ? msg : "read error")));
  bytes_ += static_cast<std::uint64_t>(got);
  return static_cast<size_t>(got);
}

std::string read_input(const std::string& path, const ReadOptions& options) {
  const std::uint64_t max_bytes = options.max_bytes ? options.max_bytes : default_max_input_bytes();
  const std::uint64_t max_line = options.max_line_bytes;
  InputStream in(path);
  std::string data;
  struct stat st {};
  if (path != "-" && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) <= max_bytes)
    data.reserve(static_cast<size_t>(st.st_size));
  std::uint64_t line = 1, line_len = 0;
  bool after_cr = false;
  char buf[1 << 16];
  for (;;) {
    size_t n = in.read(buf, sizeof(buf));
    if (n == 0) break;
    if (data.size() + n > max_bytes)
      throw Error(fmt::format("{}: more than {} bytes: refusing to read further", in.name(), max_bytes),
                  "set CKTUNE_MAX_INPUT_BYTES to a larger number of bytes if this input is genuine");
    if (max_line) {
      for (size_t i = 0; i < n; ++i) {
        const char c = buf[i];
        // '\n', '\r\n' and a lone '\r' (old Mac files) each end one line, as in parse_csv.
        if (c == '\n' || c == '\r') {
          if (!(c == '\n' && after_cr)) ++line;
          after_cr = c == '\r';
          line_len = 0;
          continue;
        }
        after_cr = false;
        if (++line_len > max_line)
          throw InputError(in.name(), line, 0, fmt::format("line longer than the limit of {} bytes", max_line),
                           "this is not an AITER table (rows are a few hundred bytes); if it is genuine, set "
                           "CKTUNE_MAX_LINE_BYTES to a larger number of bytes");
      }
    }
    data.append(buf, n);
  }
  return data;
}

bool file_exists(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

}  // namespace cktune
