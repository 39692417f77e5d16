#pragma once
// Buffered, whole-line appends to one trace file, for the CUPTI injection library: lines
// collect in memory and go to the file in large writes, so tracing costs the traced program
// little. Every write holds whole lines only, so a reader never sees half a record except
// when the process dies inside write(2). Errors never throw: after a failed write the writer
// goes quiet and drops what it is given. Not thread-safe. No CUDA, no exceptions, no
// allocation beyond the buffer.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace vramscope::trace {

/// "trace-<pid>.jsonl": the file of one traced process inside the --out folder.
std::string trace_file_name(std::int64_t pid);

class trace_writer {
 public:
  /// `flush_bytes`: the buffer is written out once it holds this much. Larger means fewer
  /// system calls and more records lost if the process is killed with SIGKILL.
  explicit trace_writer(std::size_t flush_bytes = 1 << 20) : flush_bytes_(flush_bytes) {}
  ~trace_writer();
  trace_writer(const trace_writer&) = delete;
  trace_writer& operator=(const trace_writer&) = delete;

  /// Opens `path` for appending, creating it (mode 0644). False with the reason in `error`.
  bool open(const std::string& path, std::string& error);

  /// The buffer, for the append_*_line functions of trace_record.hpp. Add whole lines only,
  /// then call maybe_flush().
  std::string& buffer() { return buffer_; }

  /// Writes the buffer when it holds at least flush_bytes.
  void maybe_flush() {
    if (buffer_.size() >= flush_bytes_) flush();
  }

  /// Writes the buffer out now. False when the file is not open or a write failed; the writer
  /// then stays failed and discards its buffer.
  bool flush();

  /// Flushes and closes the file (also done by the destructor).
  void close();

  [[nodiscard]] bool failed() const { return failed_; }
  [[nodiscard]] std::uint64_t written_bytes() const { return written_; }

 private:
  int fd_ = -1;
  std::string buffer_;
  std::size_t flush_bytes_;
  bool failed_ = false;
  std::uint64_t written_ = 0;
};

}  // namespace vramscope::trace
