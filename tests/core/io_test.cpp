#include <vramscope/core/io.hpp>

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>

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

}  // namespace
}  // namespace vramscope
