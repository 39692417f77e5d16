#include <vramscope/core/units.hpp>

#include <gtest/gtest.h>

namespace vramscope {
namespace {

TEST(Units, LiteralsArePowersOfTwo) {
  EXPECT_EQ(2_MiB, 2097152u);
  EXPECT_EQ(80_GiB, 85899345920u);
}

TEST(Units, FormatBytesPicksBinaryUnit) {
  EXPECT_EQ(format_bytes(100), "100 B");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(20_MiB), "20.0 MiB");
  EXPECT_EQ(format_bytes(72_GiB), "72.00 GiB");
}

TEST(Units, FormatDeltaCarriesSign) {
  EXPECT_EQ(format_delta(0), "0 B");
  EXPECT_EQ(format_delta(-static_cast<std::int64_t>(300_MiB)), "-300.0 MiB");
  EXPECT_EQ(format_delta(static_cast<std::int64_t>(1_GiB)), "+1.00 GiB");
}

TEST(Units, ParseBytesAcceptsBinaryAndDecimalSuffixes) {
  bytes b = 0;
  ASSERT_TRUE(parse_bytes("80GiB", b));
  EXPECT_EQ(b, 80_GiB);
  ASSERT_TRUE(parse_bytes("80 GB", b));
  EXPECT_EQ(b, 80'000'000'000u);
  ASSERT_TRUE(parse_bytes("81920MiB", b));
  EXPECT_EQ(b, 80_GiB);
  ASSERT_TRUE(parse_bytes("1.5G", b));
  EXPECT_EQ(b, 1536_MiB);
  ASSERT_TRUE(parse_bytes("123456", b));
  EXPECT_EQ(b, 123456u);
}

TEST(Units, ParseBytesRejectsNonSizes) {
  bytes b = 0;
  EXPECT_FALSE(parse_bytes("", b));
  EXPECT_FALSE(parse_bytes("GiB", b));
  EXPECT_FALSE(parse_bytes("12 parsecs", b));
  EXPECT_FALSE(parse_bytes("1.2.3G", b));
  EXPECT_FALSE(parse_bytes(".", b));
  EXPECT_FALSE(parse_bytes(".GiB", b));
  EXPECT_FALSE(parse_bytes(std::string(400, '9'), b));
}

TEST(Units, RoundUpAndCeilDiv) {
  EXPECT_EQ(round_up(1, 512), 512u);
  EXPECT_EQ(round_up(1024, 512), 1024u);
  EXPECT_EQ(ceil_div(10, 3), 4u);
}

}  // namespace
}  // namespace vramscope
