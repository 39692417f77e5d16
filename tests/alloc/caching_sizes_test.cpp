// Size arithmetic of the caching allocator: round_size, roundup_power2_divisions, the
// new-segment table and torch's format_size.

#include <vramscope/alloc/caching_allocator.hpp>

#include <gtest/gtest.h>

namespace vramscope::alloc {
namespace {

caching_allocator_options with_divisions(std::uint32_t d) {
  caching_allocator_options o;
  o.roundup_power2_divisions.fill(d);
  return o;
}

TEST(CachingRoundSize, RoundsToMultiplesOf512Bytes) {
  const caching_allocator_options o;
  EXPECT_EQ(caching_round_size(1, o), 512u);
  EXPECT_EQ(caching_round_size(512, o), 512u);
  EXPECT_EQ(caching_round_size(513, o), 1024u);
  EXPECT_EQ(caching_round_size(5_MiB + 1, o), 5_MiB + 512);
}

TEST(CachingRoundSize, NextPowerOfTwoDivisionOfTwelveHundredBytesIsTwelveEighty) {
  // The upstream example: grid 1024, 1280, 1536, 1792 between 1024 and 2048.
  EXPECT_EQ(round_to_power2_division(1200, 4), 1280u);
  EXPECT_EQ(round_to_power2_division(1024, 4), 1024u) << "powers of two stay";
  EXPECT_EQ(round_to_power2_division(1281, 4), 1536u);
}

TEST(CachingRoundSize, DivisionsApplyOnlyAboveFiveHundredTwelveBytesEach) {
  // round_size uses divisions only when size > 512 * divisions: 1200 B stays on 512 B steps.
  EXPECT_EQ(caching_round_size(1200, with_divisions(4)), 1536u);
  EXPECT_EQ(caching_round_size(1200, with_divisions(2)), 1536u) << "1200 > 1024: 2 divisions";
  EXPECT_EQ(caching_round_size(1'258'291, with_divisions(4)), 1_MiB + 256_KiB);  // 1.2 -> 1.25 MiB
  EXPECT_EQ(caching_round_size(5_MiB + 1, with_divisions(4)), 6_MiB);
  EXPECT_EQ(caching_round_size(5_MiB + 1, with_divisions(8)), 5_MiB + 512_KiB);
}

TEST(CachingRoundSize, PicksDivisionsByPowerOfTwoInterval) {
  caching_allocator_options o;
  o.roundup_power2_divisions[3] = 2;  // [8 MiB, 16 MiB)
  EXPECT_EQ(caching_round_size(9_MiB, o), 12_MiB);
  EXPECT_EQ(caching_round_size(5_MiB + 1, o), 5_MiB + 512) << "interval 2 has no divisions";
  o.roundup_power2_divisions[15] = 2;  // 32 GiB and above
  EXPECT_EQ(caching_round_size(100_GiB, o), 128_GiB);
}

TEST(CachingSegmentSize, FollowsTheThreeSizeClasses) {
  EXPECT_EQ(caching_segment_size(512), 2_MiB);
  EXPECT_EQ(caching_segment_size(1_MiB), 2_MiB);
  EXPECT_EQ(caching_segment_size(1_MiB + 512), 20_MiB);
  EXPECT_EQ(caching_segment_size(10_MiB - 512), 20_MiB);
  EXPECT_EQ(caching_segment_size(10_MiB), 10_MiB);
  EXPECT_EQ(caching_segment_size(12_MiB + 512_KiB), 14_MiB);
}

TEST(FormatTorchSize, UsesTwoDecimalsAndInclusiveUnits) {
  EXPECT_EQ(format_torch_size(0), "0 bytes");
  EXPECT_EQ(format_torch_size(1024), "1024 bytes");
  EXPECT_EQ(format_torch_size(1025), "1.00 KiB");
  EXPECT_EQ(format_torch_size(1_MiB), "1024.00 KiB");
  EXPECT_EQ(format_torch_size(600_MiB), "600.00 MiB");
  EXPECT_EQ(format_torch_size(1_GiB), "1024.00 MiB");
  EXPECT_EQ(format_torch_size(1_GiB + 512_MiB), "1.50 GiB");
}

}  // namespace
}  // namespace vramscope::alloc
