#include "cktune/core/io.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include <fmt/format.h>

#include "cktune/core/error.hpp"

namespace cktune {

namespace fs = std::filesystem;

void write_file_atomic(const std::string& path, std::string_view content) {
  fs::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) {
    fs::create_directories(target.parent_path(), ec);
    if (ec) throw Error(fmt::format("cannot create folder {}: {}", target.parent_path().string(), ec.message()));
  }
  std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(fmt::format("cannot write {}: {}", tmp, std::strerror(errno)), "check the folder exists and is writable");
  const char* p = content.data();
  size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw Error(fmt::format("cannot write {}: {}", tmp, std::strerror(e)));
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    throw Error(fmt::format("cannot flush {}: {}", tmp, std::strerror(e)));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    throw Error(fmt::format("cannot rename {} to {}: {}", tmp, path, std::strerror(e)));
  }
}

namespace {

std::string gunzip(const std::string& name, const std::string& compressed) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) throw Error("zlib initialisation failed");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  zs.avail_in = static_cast<uInt>(compressed.size());
  std::string out;
  char buf[1 << 16];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof(buf);
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc == Z_STREAM_END && zs.avail_in > 0) {  // concatenated gzip members
      out.append(buf, sizeof(buf) - zs.avail_out);
      inflateReset(&zs);
      rc = Z_OK;
      continue;
    }
    if (rc != Z_OK && rc != Z_STREAM_END) {
      // A truncated gzip file keeps what was decoded: logs are often copied while being written.
      out.append(buf, sizeof(buf) - zs.avail_out);
      inflateEnd(&zs);
      if (rc == Z_BUF_ERROR && !out.empty()) return out;
      throw Error(fmt::format("{}: not a valid gzip file ({})", name, zs.msg ? zs.msg : "inflate failed"));
    }
    out.append(buf, sizeof(buf) - zs.avail_out);
  }
  inflateEnd(&zs);
  return out;
}

}  // namespace

std::string read_input(const std::string& path) {
  std::string data;
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    data = ss.str();
  } else {
    std::error_code ec;
    if (fs::is_directory(path, ec)) throw Error(fmt::format("{}: is a folder, not a file", path));
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(fmt::format("cannot open {}: {}", path, std::strerror(errno)), "check the path");
    data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  bool gz_magic = data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f &&
                  static_cast<unsigned char>(data[1]) == 0x8b;
  if (gz_magic) return gunzip(path, data);
  return data;
}

bool file_exists(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

}  // namespace cktune
