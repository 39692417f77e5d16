#include <vramscope/core/io.hpp>

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace vramscope
