#pragma once
// File input and output with vramscope's error conventions: reads are bounded and report the
// file by name; writes are atomic (a temporary file renamed over the target), so a file we
// write is either whole or untouched.

#include <cstdint>
#include <string>

#include <vramscope/core/result.hpp>
#include <vramscope/core/units.hpp>

namespace vramscope {

/// Reads a whole file. Fails with "<path>: no such file", "<path>: is a directory",
/// "<path>: larger than <limit>" or the system's reason.
result<std::string> read_file(const std::string& path, bytes limit = 256_MiB);

/// Reads `length` bytes at `offset`. Fails when the file is shorter.
result<std::string> read_file_range(const std::string& path, std::uint64_t offset,
                                    std::uint64_t length);

/// Size of a regular file in bytes.
result<std::uint64_t> file_size(const std::string& path);

/// Writes `content` to `path` whole or not at all: writes `path.tmp.<pid>`, flushes, renames.
status write_file_atomic(const std::string& path, const std::string& content);

}  // namespace vramscope
