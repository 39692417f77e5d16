#pragma once
// File input and output with vramscope's error conventions: reads are bounded and report the
// file by name; writes to a file are atomic (a temporary file renamed over the target), so a
// file we write is either whole or untouched; every write is checked.

#include <cstdint>
#include <streambuf>
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

/// Writes `content` to `path`. A regular file or a new path is written whole or not at all:
/// `path.tmp.<pid>` beside it, flushed, renamed over it. A symbolic link is followed, and its
/// target replaced so (the link stays a link). Anything else (/dev/null, /dev/stdout, a pipe) is
/// written through as it is, never replaced. Fails naming `path` with the system's reason,
/// a full disk included.
status write_file_atomic(const std::string& path, const std::string& content);

/// A stream buffer writing to a file descriptor that keeps the first write error: std::cout
/// through it tells a full disk (/dev/full: ENOSPC) or a reader gone (EPIPE, with SIGPIPE
/// ignored) apart from success. After an error it discards what it is given and keeps failing.
class fd_output_buffer : public std::streambuf {
 public:
  explicit fd_output_buffer(int fd) : fd_(fd) { setp(buffer_, buffer_ + sizeof buffer_); }
  fd_output_buffer(const fd_output_buffer&) = delete;
  fd_output_buffer& operator=(const fd_output_buffer&) = delete;
  ~fd_output_buffer() override { sync(); }
  /// errno of the first failed write; 0 while every write succeeded.
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override;
  int sync() override;

 private:
  bool drain();
  int fd_;
  int error_ = 0;
  char buffer_[8192];
};

/// An append-only file of lines, each written whole or not at all: the text given between two
/// flushes is written at the flush, and a write the disk cut short is truncated back, so the
/// file never ends in part of a line. Opening it removes such a part left by an older program
/// (or a crash mid-write). An std::ostream over it fails (badbit) from the first failed write;
/// error() tells why.
class line_append_buffer : public std::streambuf {
 public:
  line_append_buffer() = default;
  line_append_buffer(const line_append_buffer&) = delete;
  line_append_buffer& operator=(const line_append_buffer&) = delete;
  ~line_append_buffer() override;

  /// Opens (creating) `path` for appending. `removed` gets the size of an unfinished last line
  /// taken off the end, 0 when it ended in a line break. A device or pipe (/dev/stderr) is
  /// written through as it is; a directory is refused.
  status open(const std::string& path, std::uint64_t& removed);
  bool is_open() const { return fd_ >= 0; }
  /// errno of the first failed write; 0 while every write succeeded.
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  int fd_ = -1;
  int error_ = 0;
  std::string pending_;
};

}  // namespace vramscope
