// The mechanism behind variable-length training's reserved growth, on hand-built histories:
// each step allocates its activations at the step's length and frees them all at its end.
// PyTorch's CUDACachingAllocator (c10/cuda/CUDACachingAllocator.cpp) serves a request from the
// smallest cached block of its stream and pool that fits (get_free_block), splits a large-pool
// block only when more than 1 MiB would be left (should_split), never merges segments, and
// otherwise asks the driver for a new segment: the request rounded to 2 MiB from 10 MiB on, a
// 20 MiB segment for requests of 1 to 10 MiB (get_allocation_size). So a step longer than every
// earlier one finds only segments cut to the shorter steps' sizes and reserves new ones, while
// a shorter step after a longer one is carved from the longer one's segments. Expandable
// segments map 20 MiB pages at the end of one growing segment, so the freed range of the short
// step is reused and only the difference is mapped.

#include <vramscope/alloc/caching_allocator.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace vramscope::alloc {
namespace {

// Reserved bytes after each step of `lengths`: a persistent `kept` tensor, then per step
// `tensors` activations of length x `per_token` bytes, all freed at the step's end.
std::vector<bytes> reserved_after_steps(const std::vector<std::uint64_t>& lengths, bytes per_token,
                                        bool expandable, bytes kept = 100_MiB, int tensors = 4,
                                        bytes max_split_size = unlimited_split) {
  caching_allocator_options o;
  o.capacity = 80_GiB;
  o.device_total = 80_GiB;
  o.expandable_segments = expandable;
  o.max_split_size = max_split_size;
  caching_allocator model(o);
  if (kept > 0) {
    EXPECT_TRUE(model.allocate(kept, 0).ok);
  }
  std::vector<bytes> out;
  for (auto length : lengths) {
    std::vector<handle> step;
    for (int t = 0; t < tensors; ++t) {
      const auto a = model.allocate(length * per_token, 0);
      EXPECT_TRUE(a.ok);
      step.push_back(a.id);
    }
    for (auto id : step) model.free(id);
    out.push_back(model.stats().reserved.current);
  }
  return out;
}

// Four 16 MiB activations a short step (1024 tokens), four 32 MiB a long one (2048).
TEST(VariableLengthHistory, LongerStepAfterShorterOnesReservesNewSegments) {
  const auto r = reserved_after_steps({1024, 2048, 1024, 2048}, 16_KiB, false);
  // Step 1: four segments of exactly 16 MiB (>= 10 MiB: rounded to 2 MiB) beside the kept 100.
  EXPECT_EQ(r[0], 164_MiB);
  // Step 2: no cached block holds 32 MiB; four new 32 MiB segments, the 16 MiB ones stay.
  EXPECT_EQ(r[1], 292_MiB);
  // Steps 3 and 4 find blocks that fit: the short one takes the 16 MiB segments (best fit),
  // the long one the 32 MiB segments. Nothing more is reserved.
  EXPECT_EQ(r[2], 292_MiB);
  EXPECT_EQ(r[3], 292_MiB);
}

TEST(VariableLengthHistory, ShorterStepAfterALongerOneReservesNothing) {
  const auto r = reserved_after_steps({2048, 1024, 1024, 2048}, 16_KiB, false);
  // The short steps split the 32 MiB segments (16 MiB left, more than 1 MiB); freed, the halves
  // merge back within their segment, so the long step fits again.
  for (auto v : r) EXPECT_EQ(v, 228_MiB);
}

TEST(VariableLengthHistory, ExpandableSegmentsMapOnlyTheDifference) {
  const auto r = reserved_after_steps({1024, 2048, 1024, 2048}, 16_KiB, true);
  // One growing segment: 100 + 64 MiB in use maps 180 MiB (20 MiB pages); the long step reuses
  // the freed 64 MiB and maps up to 100 + 128 = 228, rounded to 240.
  EXPECT_EQ(r[0], 180_MiB);
  EXPECT_EQ(r[1], 240_MiB);
  EXPECT_EQ(r[2], 240_MiB);
  EXPECT_EQ(r[3], 240_MiB);
  const auto fixed = reserved_after_steps({1024, 2048, 1024, 2048}, 16_KiB, false);
  EXPECT_LT(r[3] - r[0], fixed[3] - fixed[0]) << "expandable segments grow less";
}

// Requests of 1 to 10 MiB share 20 MiB segments: four 4 MiB activations fit one; four 8 MiB
// ones leave a 4 MiB piece after two, so the third opens a second 20 MiB segment although 32
// MiB < 40 MiB.
TEST(VariableLengthHistory, MidSizedRequestsGrowByTwentyMiBSegments) {
  const auto r = reserved_after_steps({256, 512, 256}, 16_KiB, false, 0);
  EXPECT_EQ(r[0], 20_MiB);
  EXPECT_EQ(r[1], 40_MiB);
  EXPECT_EQ(r[2], 40_MiB);
}

// With max_split_size_mb:20 the long step's 32 MiB segments are oversize: a 16 MiB request,
// below the limit, never takes one (get_free_block), so a shorter step after a longer one
// reserves segments of its own too; the long step after it reuses its own.
TEST(VariableLengthHistory, OversizeBlocksServeNoShorterStep) {
  const auto r = reserved_after_steps({2048, 1024, 2048, 1024}, 16_KiB, false, 100_MiB, 4, 20_MiB);
  EXPECT_EQ(r[0], 228_MiB);
  EXPECT_EQ(r[1], 292_MiB);
  EXPECT_EQ(r[2], 292_MiB);
  EXPECT_EQ(r[3], 292_MiB);
}

// An expandable segment's address range is 1 1/8 of the device's memory: a request beyond it
// fails as out of memory.
TEST(VariableLengthHistory, ExpandableRequestBeyondTheAddressRangeFails) {
  caching_allocator_options o;
  o.capacity = 80_GiB;
  o.device_total = 16_MiB;
  o.expandable_segments = true;
  caching_allocator model(o);
  const auto a = model.allocate(40_MiB, 0);
  ASSERT_FALSE(a.ok);
  ASSERT_TRUE(a.oom);
  EXPECT_EQ(a.oom->requested, 40_MiB);
}

}  // namespace
}  // namespace vramscope::alloc
