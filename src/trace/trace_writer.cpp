// Part of the CUPTI injection library too: plain POSIX calls, no exceptions.
#include <vramscope/trace/trace_writer.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace vramscope::trace {

std::string trace_file_name(std::int64_t pid) { return "trace-" + std::to_string(pid) + ".jsonl"; }

trace_writer::~trace_writer() { close(); }

bool trace_writer::open(const std::string& path, std::string& error) {
  close();
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    error = path + ": " + std::strerror(errno);
    failed_ = true;
    return false;
  }
  failed_ = false;
  return true;
}

bool trace_writer::flush() {
  if (fd_ < 0 || failed_) {
    buffer_.clear();
    return false;
  }
  std::size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      failed_ = true;
      buffer_.clear();
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  written_ += done;
  buffer_.clear();
  return true;
}

void trace_writer::close() {
  if (fd_ < 0) return;
  flush();
  ::close(fd_);
  fd_ = -1;
}

}  // namespace vramscope::trace
