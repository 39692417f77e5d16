#include "observe/pickle_source.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <vramscope/core/io.hpp>

namespace vramscope::observe::detail {

byte_source::byte_source(byte_source&& o) noexcept
    : p(o.p), end(o.end), fd_(o.fd_), size_(o.size_), base_(o.base_), window_start_(o.window_start_),
      buffer_(std::move(o.buffer_)), capacity_(o.capacity_), chunk_(o.chunk_), io_error_(std::move(o.io_error_)) {
  o.fd_ = -1;
}

byte_source::~byte_source() {
  if (fd_ >= 0) ::close(fd_);
}

result<byte_source> byte_source::open_file(const std::string& path, std::size_t chunk) {
  // A pipe, device or socket is refused before open(), which would block on a FIFO until a
  // writer came; O_NONBLOCK covers a path swapped for one in between (no effect on a file).
  if (auto size = file_size(path); !size) return size.error();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT) return error_at(path, "no such file");
    return error_at(path, fmt::format("cannot open: {}", std::strerror(errno)));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return error_at(path, S_ISDIR(st.st_mode) ? "is a directory, expected a file" : "not a regular file");
  }
  byte_source src;
  src.fd_ = fd;
  src.size_ = static_cast<std::uint64_t>(st.st_size);
  src.chunk_ = chunk < 4096 ? 4096 : chunk;
  src.buffer_.reset(new std::uint8_t[src.chunk_]);
  src.capacity_ = src.chunk_;
  src.window_start_ = src.buffer_.get();
  src.p = src.end = src.buffer_.get();
  return src;
}

byte_source byte_source::from_memory(std::string_view data) {
  byte_source src;
  src.size_ = data.size();
  src.window_start_ = reinterpret_cast<const std::uint8_t*>(data.data());
  src.p = src.window_start_;
  src.end = src.p + data.size();
  return src;
}

bool byte_source::refill(std::size_t n) {
  if (fd_ < 0 || !io_error_.empty()) return false;
  // Move the unread tail to the front. The buffer is one chunk, or exactly one long value when
  // that is larger; it goes back to a chunk afterwards so one big string does not pin memory.
  const auto unread = static_cast<std::size_t>(end - p);
  base_ = offset();
  const std::size_t target = n > chunk_ ? n : chunk_;
  if (target != capacity_) {
    std::unique_ptr<std::uint8_t[]> next(new std::uint8_t[target]);
    std::memcpy(next.get(), p, unread);
    buffer_ = std::move(next);
    capacity_ = target;
  } else {
    std::memmove(buffer_.get(), p, unread);
  }
  std::size_t have = unread;
  const std::size_t want = capacity_;
  while (have < want) {
    const ssize_t got = ::read(fd_, buffer_.get() + have, want - have);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      io_error_ = std::strerror(errno);
      break;
    }
    if (got == 0) break;
    have += static_cast<std::size_t>(got);
  }
  window_start_ = buffer_.get();
  p = buffer_.get();
  end = buffer_.get() + have;
  return have >= n;
}

}  // namespace vramscope::observe::detail
