#pragma once
// File I/O that never leaves a half-written output: write to a temporary in the same folder, fsync, rename.
#include <string>
#include <string_view>

namespace cktune {

// Replace `path` atomically with `content`. Creates missing parent folders. Throws cktune::Error.
void write_file_atomic(const std::string& path, std::string_view content);

// Whole file into memory. "-" reads stdin; a name ending in ".gz" (or gzip magic) is decompressed.
// Throws cktune::Error naming the file when it cannot be read.
std::string read_input(const std::string& path);

bool file_exists(const std::string& path);

}  // namespace cktune
