#include <vramscope/core/io.hpp>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace vramscope {

namespace fs = std::filesystem;

result<std::uint64_t> file_size(const std::string& path) {
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (ec || !fs::exists(st)) return error_at(path, "no such file");
  if (fs::is_directory(st)) return error_at(path, "is a directory, expected a file");
  // Devices, pipes and sockets have no size to read up to: /dev/zero never ends, a FIFO blocks.
  if (!fs::is_regular_file(st)) {
    const char* kind = fs::is_fifo(st)                                       ? "a named pipe (FIFO)"
                       : fs::is_character_file(st) || fs::is_block_file(st) ? "a device"
                       : fs::is_socket(st)                                   ? "a socket"
                                                                             : "not a regular file";
    return error_at(path, fmt::format("is {}, expected a regular file (write the output to a "
                                      "file and pass its path)",
                                      kind));
  }
  const auto size = fs::file_size(path, ec);
  if (ec) return error_at(path, ec.message());
  return static_cast<std::uint64_t>(size);
}

result<std::string> read_file(const std::string& path, bytes limit) {
  auto size = file_size(path);
  if (!size) return size.error();
  if (*size > limit)
    return error_at(path, fmt::format("file is {}, larger than the {} this reader accepts",
                                      format_bytes(*size), format_bytes(limit)));
  return read_file_range(path, 0, *size);
}

result<std::string> read_file_range(const std::string& path, std::uint64_t offset,
                                    std::uint64_t length) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return error_at(path, fmt::format("cannot open: {}", std::strerror(errno)));
  in.seekg(static_cast<std::streamoff>(offset));
  std::string data(length, '\0');
  in.read(data.data(), static_cast<std::streamsize>(length));
  if (static_cast<std::uint64_t>(in.gcount()) != length)
    return error_at(path, fmt::format("file ends after {} bytes, expected {} bytes at offset {}",
                                      offset + static_cast<std::uint64_t>(in.gcount()), length,
                                      offset));
  return data;
}

namespace {

// Writes all of `data` to `fd`, resuming after a signal. errno is kept on failure.
bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

status write_through(const std::string& path, const std::string& content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return error_at(path, fmt::format("cannot write: {}", std::strerror(errno)));
  const bool written = write_all(fd, content.data(), content.size());
  const int saved = errno;
  if (::close(fd) != 0 && written)
    return error_at(path, fmt::format("cannot write: {}", std::strerror(errno)));
  if (!written) return error_at(path, fmt::format("cannot write: {}", std::strerror(saved)));
  return ok();
}

}  // namespace

status write_file_atomic(const std::string& path, const std::string& content) {
  std::error_code ec;
  std::string target = path;
  if (fs::is_symlink(fs::symlink_status(path, ec))) {
    // Replace what the link points to, not the link; a dangling link is written through.
    const fs::path resolved = fs::canonical(path, ec);
    if (ec) return write_through(path, content);
    target = resolved.string();
  }
  const auto st = fs::status(target, ec);
  if (!ec && fs::exists(st) && !fs::is_regular_file(st)) {
    if (fs::is_directory(st)) return error_at(path, "is a directory, expected a file");
    return write_through(path, content);  // a device or pipe: never replaced by a file
  }
  const std::string tmp = fmt::format("{}.tmp.{}", target, ::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return error_at(path, fmt::format("cannot write: {}", std::strerror(errno)));
  bool written = write_all(fd, content.data(), content.size());
  int saved = errno;
  if (::close(fd) != 0 && written) {
    written = false;
    saved = errno;
  }
  if (!written) {
    std::remove(tmp.c_str());
    return error_at(path, fmt::format("cannot write: {}", std::strerror(saved)));
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    std::remove(tmp.c_str());
    return error_at(path, fmt::format("cannot replace: {}", ec.message()));
  }
  return ok();
}

bool fd_output_buffer::drain() {
  const auto size = static_cast<std::size_t>(pptr() - pbase());
  setp(buffer_, buffer_ + sizeof buffer_);
  if (error_ != 0) return false;
  if (!write_all(fd_, buffer_, size)) {
    error_ = errno;
    return false;
  }
  return true;
}

fd_output_buffer::int_type fd_output_buffer::overflow(int_type c) {
  if (!drain()) return traits_type::eof();
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

int fd_output_buffer::sync() { return drain() ? 0 : -1; }

line_append_buffer::~line_append_buffer() {
  if (fd_ < 0) return;
  sync();
  ::close(fd_);
}

status line_append_buffer::open(const std::string& path, std::uint64_t& removed) {
  removed = 0;
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (!ec && fs::is_directory(st)) return error_at(path, "is a directory, expected a file");
  if (!ec && fs::exists(st) && !fs::is_regular_file(st)) {
    // /dev/stderr, a pipe: written through, nothing to repair or take back.
    const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0)
      return error_at(path, fmt::format("cannot open for appending: {}", std::strerror(errno)));
    fd_ = fd;
    return ok();
  }
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  if (fd < 0)
    return error_at(path, fmt::format("cannot open for appending: {}", std::strerror(errno)));
  // An unfinished last line: back to the byte after the last line break (or to empty).
  const off_t size = ::lseek(fd, 0, SEEK_END);
  char last = '\n';
  if (size > 0 && ::pread(fd, &last, 1, size - 1) != 1) last = '\n';
  if (last != '\n') {
    off_t keep = size - 1;
    constexpr off_t block_size = 4096;
    char block[block_size];
    for (bool found = false; keep > 0 && !found;) {
      const off_t from = keep > block_size ? keep - block_size : 0;
      const ssize_t n = ::pread(fd, block, static_cast<std::size_t>(keep - from), from);
      if (n <= 0) break;
      for (ssize_t i = n; i > 0; --i)
        if (block[i - 1] == '\n') {
          keep = from + i;
          found = true;
          break;
        }
      if (!found) keep = from;
    }
    if (::ftruncate(fd, keep) != 0) {
      const int saved = errno;
      ::close(fd);
      return error_at(path, fmt::format("cannot remove its unfinished last line: {}",
                                        std::strerror(saved)));
    }
    removed = static_cast<std::uint64_t>(size - keep);
  }
  fd_ = fd;
  return ok();
}

line_append_buffer::int_type line_append_buffer::overflow(int_type c) {
  if (!traits_type::eq_int_type(c, traits_type::eof())) pending_ += traits_type::to_char_type(c);
  return traits_type::not_eof(c);
}

std::streamsize line_append_buffer::xsputn(const char* s, std::streamsize n) {
  pending_.append(s, static_cast<std::size_t>(n));
  return n;
}

int line_append_buffer::sync() {
  if (pending_.empty()) return error_ == 0 ? 0 : -1;
  std::string text;
  text.swap(pending_);
  if (fd_ < 0 || error_ != 0) return -1;
  const off_t before = ::lseek(fd_, 0, SEEK_END);  // -1 on a pipe: nothing to take back
  if (write_all(fd_, text.data(), text.size())) return 0;
  error_ = errno;
  // Take back the part that reached the disk, so the file still ends at a line break.
  if (before >= 0) {
    const int truncated = ::ftruncate(fd_, before);
    static_cast<void>(truncated);  // nothing more to do if even that fails
  }
  return -1;
}

}  // namespace vramscope
