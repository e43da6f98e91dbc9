#pragma once
// File I/O that never leaves a half-written output and never trusts an input's size or integrity.
// The guarantees and the tests that check them are listed in docs/reliability.md.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cktune {

// Replace `path` atomically with `content`: a temporary created exclusively (O_EXCL|O_NOFOLLOW, random
// name) in the target's folder, fsync, rename over the target, fsync of the folder. Creates missing parent
// folders. Refuses a target that exists and is not a regular file (a device, FIFO, socket or folder), so
// `-o /dev/null` never replaces the device. Throws cktune::Error.
void write_file_atomic(const std::string& path, std::string_view content);

// Throws cktune::Error when `path` exists and is not a regular file (symlinks are followed). Verbs call it
// before doing any work so that a bad -o fails at once; write_file_atomic checks again.
void check_output_path(const std::string& path);

// Limits of read_input / InputStream (docs/reliability.md#limits).
struct ReadOptions {
  // Most bytes (after decompression) read from one input; beyond it the read fails. Bounds memory for
  // pipes, FIFOs and gzip bombs.
  std::uint64_t max_bytes = 0;       // 0: default_max_input_bytes()
  // Longest line allowed (a '\n' or lone '\r' ends a line); 0: no line limit. Tables pass
  // default_max_line_bytes(); JSON files do not.
  std::uint64_t max_line_bytes = 0;
};

// 1 MiB, or the environment variable CKTUNE_MAX_LINE_BYTES (bytes) when set to a positive number.
std::uint64_t default_max_line_bytes();
// 4 GiB, or the environment variable CKTUNE_MAX_INPUT_BYTES (bytes) when set to a positive number.
std::uint64_t default_max_input_bytes();

// One input, read sequentially: "-" is stdin; gzip is detected by its magic and decompressed (members may
// be concatenated). Refuses folders and devices other than /dev/null. Compressed data that ends before
// the gzip trailer, or fails its CRC, is an error naming the file and the compressed byte offset.
class InputStream {
 public:
  explicit InputStream(const std::string& path);
  ~InputStream();
  InputStream(const InputStream&) = delete;
  InputStream& operator=(const InputStream&) = delete;

  // Up to `n` bytes into `buf`; 0 at the end of the input. Throws cktune::Error.
  size_t read(char* buf, size_t n);
  const std::string& name() const { return name_; }  // "<stdin>" for "-"
  std::uint64_t bytes_read() const { return bytes_; }  // after decompression

 private:
  std::string name_;
  void* gz_ = nullptr;  // gzFile, kept out of the header
  std::uint64_t bytes_ = 0;
};

// Whole input into memory (InputStream rules). Throws cktune::Error naming the file when it cannot be
// read or breaks a limit of `options`; a line over the limit is an InputError naming file:line.
std::string read_input(const std::string& path, const ReadOptions& options = {});

bool file_exists(const std::string& path);

}  // namespace cktune
