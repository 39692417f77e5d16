#include <vramscope/core/io.hpp>

#include <fmt/format.h>
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

status write_file_atomic(const std::string& path, const std::string& content) {
  const std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return error_at(path, fmt::format("cannot write: {}", std::strerror(errno)));
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      return error_at(path, "write failed (disk full?)");
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    return error_at(path, fmt::format("cannot replace: {}", ec.message()));
  }
  return ok();
}

}  // namespace vramscope
