#pragma once
// Bytes for the unpickler: a file read in chunks into one reused buffer, or a span in memory.
// The reader keeps a window [p, end) and asks for at least n contiguous bytes with ensure(n);
// only the slow path (refill) touches the file. Memory: one chunk, or the longest string read
// if that is longer (callers bound it).

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <vramscope/core/result.hpp>

namespace vramscope::observe::detail {

class byte_source {
 public:
  byte_source(const byte_source&) = delete;
  byte_source& operator=(const byte_source&) = delete;
  byte_source(byte_source&& other) noexcept;
  ~byte_source();

  static result<byte_source> open_file(const std::string& path, std::size_t chunk);
  static byte_source from_memory(std::string_view data);

  const std::uint8_t* p = nullptr;
  const std::uint8_t* end = nullptr;

  /// True when at least n bytes are available from p (refilling if needed); false at end of data.
  bool ensure(std::size_t n) { return static_cast<std::size_t>(end - p) >= n || refill(n); }
  std::uint64_t offset() const { return base_ + static_cast<std::uint64_t>(p - window_start_); }
  std::uint64_t size() const { return size_; }
  std::uint64_t remaining() const { return size_ - offset(); }
  /// Set when a read from the file failed (as opposed to reaching its end).
  const std::string& io_error() const { return io_error_; }

 private:
  byte_source() = default;
  bool refill(std::size_t n);

  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::uint64_t base_ = 0;                 // file offset of window_start_
  const std::uint8_t* window_start_ = nullptr;
  std::unique_ptr<std::uint8_t[]> buffer_;  // not zero-filled: every byte is read into before use
  std::size_t capacity_ = 0;
  std::size_t chunk_ = 0;
  std::string io_error_;
};

}  // namespace vramscope::observe::detail
