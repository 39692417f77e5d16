#include "observe/text_util.hpp"

#include <gtest/gtest.h>

namespace vramscope::observe::detail {
namespace {

TEST(TextUtil, ParsesSizesWithAndWithoutUnits) {
  EXPECT_EQ(parse_size("7719MiB", 0), 7719 * MiB);
  EXPECT_EQ(parse_size(" 1.25 GiB ", 0), 1342177280u);
  EXPECT_EQ(parse_size("512 bytes", 0), 512u);
  EXPECT_EQ(parse_size("0 B", 0), 0u);
  EXPECT_EQ(parse_size("16.00GiB", 0), 16 * GiB);
  EXPECT_EQ(parse_size("30 MB", 0), 30 * MiB);  // torch's old summary: MB meant MiB
  EXPECT_EQ(parse_size("46068", MiB), 46068 * MiB);
  EXPECT_FALSE(parse_size("46068", 0));
  EXPECT_FALSE(parse_size("lots", MiB));
  EXPECT_FALSE(parse_size("1.2.3 GiB", 0));
  EXPECT_FALSE(parse_size("12 Mb", 0));
  EXPECT_FALSE(parse_size("99999999999 PiB", 0));  // beyond 2^63
}

TEST(TextUtil, ParsesASizeAtTheStartOfASentence) {
  std::size_t used = 0;
  EXPECT_EQ(parse_size_prefix("2.00 GiB. GPU 0", used), 2 * GiB);
  EXPECT_EQ(used, 8u);
  EXPECT_FALSE(parse_size_prefix("GPU 0", used));
  EXPECT_FALSE(parse_size_prefix("12 Bytes", used));
}

TEST(TextUtil, IntegersRejectOverflowAndJunk) {
  EXPECT_EQ(parse_uint("18446744073709551615"), 18446744073709551615u);
  EXPECT_FALSE(parse_uint("18446744073709551616"));
  EXPECT_FALSE(parse_uint("12a"));
  EXPECT_FALSE(parse_uint(""));
  EXPECT_EQ(parse_int("-42"), -42);
}

TEST(TextUtil, SplitsLinesWithPositions) {
  const auto lines = split_lines("a\r\nbb\n\nccc");
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0].text, "a");
  EXPECT_EQ(lines[1].offset, 3u);
  EXPECT_EQ(lines[3].number, 4);
  EXPECT_EQ(lines[3].text, "ccc");
}

TEST(TextUtil, ErrorAtOffsetFindsLineAndColumn) {
  const auto d = error_at_offset("f.json", "{\n  \"x\": y\n}", 9, "bad");
  EXPECT_EQ(d.to_string(), "f.json:2:8: bad\n  \"x\": y\n       ^ near here");
}

TEST(TextUtil, LongLinesAreCutInMessages) {
  const std::string line(500, 'x');
  const auto d = error_on_line("f.log", {line, 0, 1}, 300, "bad");
  EXPECT_EQ(d.to_string(), "f.log:1:300: bad");
}

TEST(TextUtil, CaseInsensitiveFind) {
  EXPECT_EQ(ifind("ProcessGroupNCCL", "nccl"), 12u);
  EXPECT_EQ(ifind("abc", "abcd"), std::string_view::npos);
}

}  // namespace
}  // namespace vramscope::observe::detail
