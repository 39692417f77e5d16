// Rule tests for expandable segments: 20 MiB pages in the large pool, 2 MiB in the small one,
// growth in place, any remainder split, pages unmapped on empty_cache and before an OOM.

#include <vramscope/alloc/caching_allocator.hpp>

#include <gtest/gtest.h>

#include <map>

#include "alloc/model_checks.hpp"

namespace vramscope::alloc {
namespace {

using testing::block_of;
using testing::expect_consistent;

class ExpandableSegments : public ::testing::Test {
 protected:
  void SetUp() override { make(80_GiB); }
  void make(bytes capacity) {
    caching_allocator_options o;
    o.capacity = capacity;
    o.expandable_segments = true;
    model = std::make_unique<caching_allocator>(o);
  }
  handle allocate(bytes size, stream_id stream = 0) {
    const allocation a = model->allocate(size, stream);
    EXPECT_TRUE(a.ok) << (a.oom ? a.oom->message : "");
    if (a.ok) live[a.id] = a.block_size;
    return a.id;
  }
  void release(handle id) {
    model->free(id);
    live.erase(id);
  }
  const allocator_stats& stats() const { return model->stats(); }

  std::unique_ptr<caching_allocator> model;
  std::map<handle, bytes> live;
};

TEST_F(ExpandableSegments, ReservesTwentyMiBPageForFiveMiBRequest) {
  allocate(5_MiB);
  EXPECT_EQ(stats().reserved.current, 20_MiB);
  EXPECT_EQ(stats().device_allocs, 1u);
  EXPECT_EQ(stats().segments, 0u) << "page maps are not cudaMalloc segments";
  EXPECT_EQ(stats().inactive_split, 0u) << "not tracked for expandable segments";
  expect_consistent(*model, live);
}

TEST_F(ExpandableSegments, GrowsTheSegmentInPlace) {
  const handle a = allocate(5_MiB);
  const handle b = allocate(30_MiB);
  EXPECT_EQ(stats().reserved.current, 40_MiB) << "one more 20 MiB page, not a 30 MiB segment";
  EXPECT_EQ(stats().device_allocs, 2u);
  EXPECT_EQ(block_of(*model, b).address, block_of(*model, a).address + 5_MiB);
  expect_consistent(*model, live);
}

TEST_F(ExpandableSegments, UnmapsWholeFreePagesOnEmptyCache) {
  const handle a = allocate(5_MiB);
  release(allocate(30_MiB));
  model->empty_cache();
  EXPECT_EQ(stats().reserved.current, 20_MiB) << "page [20, 40) MiB is free; [0, 20) is in use";
  expect_consistent(*model, live);
  release(a);
  model->empty_cache();
  EXPECT_EQ(stats().reserved.current, 0u);
  EXPECT_EQ(stats().device_frees, 2u);
  EXPECT_TRUE(model->blocks().empty());
}

TEST_F(ExpandableSegments, SmallPoolMapsTwoMiBPages) {
  allocate(100);
  EXPECT_EQ(stats().reserved.current, 2_MiB);
}

TEST_F(ExpandableSegments, SplitsAnyRemainderOfAtLeast512Bytes) {
  const allocation a = model->allocate(19_MiB + 512_KiB, 0);
  EXPECT_EQ(a.block_size, 19_MiB + 512_KiB);
  caching_allocator plain;
  EXPECT_EQ(plain.allocate(19_MiB + 512_KiB, 0).block_size, 20_MiB)
      << "without expandable segments a 512 KiB remainder stays in the block";
}

TEST_F(ExpandableSegments, KeepsOneSegmentPerStream) {
  allocate(5_MiB, 0);
  allocate(5_MiB, 1);
  EXPECT_EQ(stats().reserved.current, 40_MiB);
  allocate(5_MiB, 1);
  EXPECT_EQ(stats().reserved.current, 40_MiB) << "stream 1's page has room";
}

TEST_F(ExpandableSegments, UnmapsOtherStreamsPagesBeforeAnOom) {
  make(100_MiB);
  release(allocate(60_MiB, 1));
  allocate(60_MiB, 0);  // 60 + 60 > 100: stream 1's free pages are unmapped, then retried
  EXPECT_EQ(stats().reserved.current, 60_MiB);
  EXPECT_EQ(stats().alloc_retries, 1u);
  EXPECT_EQ(stats().ooms, 0u);
  expect_consistent(*model, live);
}

TEST_F(ExpandableSegments, ReportsOomWhenPagesCannotBeMapped) {
  make(100_MiB);
  allocate(60_MiB);
  const allocation failed = model->allocate(50_MiB, 0);
  ASSERT_FALSE(failed.ok);
  EXPECT_EQ(failed.oom->segment_size, 50_MiB);
  EXPECT_EQ(stats().reserved.current, 60_MiB);
  expect_consistent(*model, live);
}

}  // namespace
}  // namespace vramscope::alloc
