#include <vramscope/core/io.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cerrno>
#include <filesystem>
#include <ostream>

namespace vramscope {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("vramscope_io_" + name)).string();
}

TEST(Io, WriteThenReadRoundTrips) {
  const auto path = temp_path("roundtrip");
  ASSERT_TRUE(write_file_atomic(path, "hello"));
  auto content = read_file(path);
  ASSERT_TRUE(content);
  EXPECT_EQ(*content, "hello");
  std::filesystem::remove(path);
}

TEST(Io, MissingFileNamesThePath) {
  auto content = read_file("/nonexistent/vramscope.json");
  ASSERT_FALSE(content);
  EXPECT_EQ(content.error().to_string(), "/nonexistent/vramscope.json: no such file");
}

TEST(Io, RefusesFilesAboveTheLimit) {
  const auto path = temp_path("big");
  ASSERT_TRUE(write_file_atomic(path, std::string(2048, 'x')));
  auto content = read_file(path, 1024);
  ASSERT_FALSE(content);
  EXPECT_NE(content.error().message.find("larger than"), std::string::npos);
  std::filesystem::remove(path);
}

TEST(Io, ShortRangeReadIsAnError) {
  const auto path = temp_path("short");
  ASSERT_TRUE(write_file_atomic(path, "abc"));
  EXPECT_FALSE(read_file_range(path, 2, 10));
  std::filesystem::remove(path);
}

TEST(Io, DirectoryIsNotAFile) {
  auto content = read_file(std::filesystem::temp_directory_path().string());
  ASSERT_FALSE(content);
  EXPECT_NE(content.error().message.find("is a directory"), std::string::npos);
}

TEST(Io, DevicesAndPipesAreRefusedInPlainWords) {
  auto device = read_file("/dev/zero");  // never ends: reading it whole would never return
  ASSERT_FALSE(device);
  EXPECT_NE(device.error().message.find("is a device, expected a regular file"), std::string::npos)
      << device.error().message;
  const auto fifo = (std::filesystem::temp_directory_path() / "vramscope_io_test.fifo").string();
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto pipe = read_file(fifo);  // opening a FIFO for reading would block until a writer comes
  std::filesystem::remove(fifo);
  ASSERT_FALSE(pipe);
  EXPECT_NE(pipe.error().message.find("named pipe"), std::string::npos) << pipe.error().message;
}

// --html /dev/null must not turn /dev/null into a regular file (as root it could): devices and
// pipes are written through.
TEST(Io, WriteToADeviceWritesThroughAndLeavesItADevice) {
  ASSERT_TRUE(write_file_atomic("/dev/null", "<html></html>"));
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/null"));
  const auto written = write_file_atomic("/dev/full", "x");
  ASSERT_FALSE(written);
  EXPECT_NE(written.error().to_string().find("/dev/full: cannot write: No space left on device"),
            std::string::npos)
      << written.error().to_string();
}

TEST(Io, WriteThroughASymlinkReplacesItsTargetAndKeepsTheLink) {
  namespace fs = std::filesystem;
  const fs::path dir = temp_path("links");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path target = dir / "report.html", link = dir / "latest.html";
  ASSERT_TRUE(write_file_atomic(target.string(), "old"));
  fs::create_symlink(target.filename(), link);
  ASSERT_TRUE(write_file_atomic(link.string(), "new"));
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_EQ(*read_file(target.string()), "new");
  // A dangling link is written through: its target is created, the link kept.
  const fs::path dangling = dir / "dangling.html";
  fs::create_symlink("created.html", dangling);
  ASSERT_TRUE(write_file_atomic(dangling.string(), "made"));
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dangling)));
  EXPECT_EQ(*read_file((dir / "created.html").string()), "made");
  // Nothing left behind: no temporary files.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 4);
  fs::remove_all(dir);
}

TEST(Io, FdOutputBufferKeepsTheWriteError) {
  const int fd = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  {
    fd_output_buffer buffer(fd);
    std::ostream out(&buffer);
    out << "a line\n" << std::flush;
    EXPECT_FALSE(out);
    EXPECT_EQ(buffer.error(), ENOSPC);
  }
  ::close(fd);
  // A reader gone, with SIGPIPE ignored: EPIPE, kept.
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  ::close(ends[0]);
  const auto previous = std::signal(SIGPIPE, SIG_IGN);
  {
    fd_output_buffer buffer(ends[1]);
    std::ostream out(&buffer);
    out << std::string(100000, 'x') << std::flush;
    EXPECT_EQ(buffer.error(), EPIPE);
  }
  std::signal(SIGPIPE, previous);
  ::close(ends[1]);
}

// A disk that fills mid-line (RLIMIT_FSIZE stands in for it: the write is cut short, then
// refused) leaves no part of a line; the next line after space returns is whole.
TEST(Io, LineAppendBufferNeverLeavesAPartLine) {
  const auto path = temp_path("full.jsonl");
  std::filesystem::remove(path);
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  const auto previous = std::signal(SIGXFSZ, SIG_IGN);
  {
    line_append_buffer buffer;
    std::uint64_t removed = 1;
    ASSERT_TRUE(buffer.open(path, removed));
    EXPECT_EQ(removed, 0u);
    std::ostream log(&buffer);
    log << "{\"first\": 1}\n" << std::flush;
    ASSERT_TRUE(log);
    rlimit small = saved;
    small.rlim_cur = 20;  // room for 7 more bytes
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
    log << "{\"second\": 2}\n" << std::flush;
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &saved), 0);
    EXPECT_FALSE(log);
    EXPECT_EQ(buffer.error(), EFBIG);
  }
  std::signal(SIGXFSZ, previous);
  EXPECT_EQ(*read_file(path), "{\"first\": 1}\n");
  std::filesystem::remove(path);
}

// A part line left by a crash (or an older version on a full disk) is taken off at the next
// start, so appended lines do not join it.
TEST(Io, LineAppendBufferRemovesAPartLineItFinds) {
  const auto path = temp_path("torn.jsonl");
  ASSERT_TRUE(write_file_atomic(path, "{\"a\": 1}\n{\"b\": 2}\n{\"c\": "));
  {
    line_append_buffer buffer;
    std::uint64_t removed = 0;
    ASSERT_TRUE(buffer.open(path, removed));
    EXPECT_EQ(removed, 6u);
    std::ostream log(&buffer);
    log << "{\"d\": 4}\n" << std::flush;
    EXPECT_TRUE(log);
  }
  EXPECT_EQ(*read_file(path), "{\"a\": 1}\n{\"b\": 2}\n{\"d\": 4}\n");
  // A file with no line break at all is emptied.
  ASSERT_TRUE(write_file_atomic(path, "partial"));
  line_append_buffer buffer;
  std::uint64_t removed = 0;
  ASSERT_TRUE(buffer.open(path, removed));
  EXPECT_EQ(removed, 7u);
  EXPECT_EQ(*file_size(path), 0u);
  std::filesystem::remove(path);
  // A device is written through; a directory is refused.
  line_append_buffer device;
  ASSERT_TRUE(device.open("/dev/null", removed));
  EXPECT_EQ(removed, 0u);
  std::ostream null(&device);
  null << "{}\n" << std::flush;
  EXPECT_TRUE(null);
  line_append_buffer folder;
  EXPECT_FALSE(folder.open(std::filesystem::temp_directory_path().string(), removed));
}

}  // namespace
}  // namespace vramscope
