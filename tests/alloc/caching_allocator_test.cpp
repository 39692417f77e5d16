// Rule tests for caching_allocator with sizes computed by hand from the upstream rules
// (segment sizes, splitting, merging, per-stream pools, recordStream, max_split_size, the
// release-and-retry path, garbage collection and the OOM text).

#include <vramscope/alloc/caching_allocator.hpp>

#include <gtest/gtest.h>

#include <map>

#include "alloc/model_checks.hpp"

namespace vramscope::alloc {
namespace {

using testing::block_of;
using testing::expect_consistent;

class CachingAllocator : public ::testing::Test {
 protected:
  void make(caching_allocator_options o = {}) { model = std::make_unique<caching_allocator>(o); }
  void SetUp() override { make(); }

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

TEST_F(CachingAllocator, CarvesTwentyMiBSegmentForFiveMiBRequest) {
  const handle a = allocate(5_MiB);
  EXPECT_EQ(stats().reserved.current, 20_MiB);
  EXPECT_EQ(stats().allocated.current, 5_MiB);
  EXPECT_EQ(stats().segments, 1u);
  EXPECT_EQ(stats().inactive_split, 15_MiB);
  EXPECT_EQ(stats().inactive_split_blocks, 1u);
  const auto blocks = model->blocks();
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0].id, a);
  EXPECT_EQ(blocks[1].size, 15_MiB);
  EXPECT_EQ(blocks[1].state, block_state::cached);
  EXPECT_EQ(model->pool_stats(pool_kind::large).reserved.current, 20_MiB);
  EXPECT_EQ(model->pool_stats(pool_kind::small).reserved.current, 0u);
}

TEST_F(CachingAllocator, PacksHundredByteRequestIntoTwoMiBSmallSegment) {
  const allocation a = model->allocate(100, 0);
  ASSERT_TRUE(a.ok);
  EXPECT_EQ(a.block_size, 512u);
  EXPECT_EQ(stats().reserved.current, 2_MiB);
  EXPECT_EQ(stats().requested.current, 100u);
  EXPECT_EQ(model->pool_stats(pool_kind::small).allocated.current, 512u);
  const allocation b = model->allocate(100, 0);
  EXPECT_EQ(stats().reserved.current, 2_MiB) << "the second request shares the segment";
  EXPECT_EQ(block_of(*model, b.id).address, block_of(*model, a.id).address + 512);
}

TEST_F(CachingAllocator, RoundsSegmentOfLargeRequestToTwoMiB) {
  const allocation a = model->allocate(12_MiB + 512_KiB, 0);
  ASSERT_TRUE(a.ok);
  EXPECT_EQ(stats().reserved.current, 14_MiB);
  EXPECT_EQ(a.block_size, 12_MiB + 512_KiB) << "1.5 MiB remainder > 1 MiB is split off";
  EXPECT_EQ(stats().inactive_split, 1_MiB + 512_KiB);
}

TEST_F(CachingAllocator, KeepsRemainderOfOneMiBInsideTheBlock) {
  const allocation a = model->allocate(11_MiB, 0);
  ASSERT_TRUE(a.ok);
  EXPECT_EQ(stats().reserved.current, 12_MiB);
  EXPECT_EQ(a.block_size, 12_MiB) << "a 1 MiB remainder is not > 1 MiB: no split";
  EXPECT_EQ(stats().allocated.current, 12_MiB);
  EXPECT_EQ(stats().requested.current, 11_MiB);
}

TEST_F(CachingAllocator, SplitsAndMergesTwentyMiBBlock) {
  const handle a = allocate(5_MiB);
  const handle b = allocate(6_MiB);
  EXPECT_EQ(stats().segments, 1u) << "6 MiB comes from the 15 MiB remainder";
  EXPECT_EQ(stats().inactive_split, 9_MiB);
  release(a);
  EXPECT_EQ(stats().inactive_split, 14_MiB);
  EXPECT_EQ(stats().inactive_split_blocks, 2u);
  release(b);
  EXPECT_EQ(stats().inactive_split, 0u);
  EXPECT_EQ(stats().inactive_split_blocks, 0u);
  const auto blocks = model->blocks();
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].size, 20_MiB);
  allocate(20_MiB);
  EXPECT_EQ(stats().reserved.current, 20_MiB) << "the merged block serves 20 MiB whole";
  expect_consistent(*model, live);
}

// A split's rest and a merged block take the node of the block they come from in the pool; these
// two move past another cached block in the (stream, size, address) order, so best fit must find
// them at their new places.
TEST_F(CachingAllocator, SplitRestTakesItsPlaceInBestFitOrder) {
  // One 2 MiB small segment carved into 100, 200, 300, 1024 and 424 KiB.
  const handle p1 = allocate(100_KiB);
  allocate(200_KiB);
  const handle p3 = allocate(300_KiB);
  allocate(1_MiB);
  allocate(424_KiB);
  ASSERT_EQ(stats().segments, 1u);
  const std::uint64_t base = block_of(*model, p1).address;
  release(p1);
  release(p3);
  const handle a = allocate(250_KiB);
  EXPECT_EQ(block_of(*model, a).address, base + 300_KiB) << "the 300 KiB block fits best";
  const handle b = allocate(40_KiB);
  EXPECT_EQ(block_of(*model, b).address, base + 550_KiB) << "its 50 KiB rest, below 100 KiB";
  const handle c = allocate(60_KiB);
  EXPECT_EQ(block_of(*model, c).address, base) << "the 100 KiB block";
  EXPECT_EQ(stats().segments, 1u);
  expect_consistent(*model, live);
}

TEST_F(CachingAllocator, MergedBlockTakesItsPlaceInBestFitOrder) {
  // One 2 MiB small segment carved into 100, 200, 50, 250, 1024 and 424 KiB.
  const handle p1 = allocate(100_KiB);
  const handle p2 = allocate(200_KiB);
  allocate(50_KiB);
  const handle p4 = allocate(250_KiB);
  allocate(1_MiB);
  allocate(424_KiB);
  ASSERT_EQ(stats().segments, 1u);
  const std::uint64_t base = block_of(*model, p1).address;
  release(p1);
  release(p4);
  release(p2);  // merges with the 100 KiB block: 300 KiB, above the 250 KiB one
  const handle a = allocate(240_KiB);
  EXPECT_EQ(block_of(*model, a).address, base + 350_KiB) << "the 250 KiB block fits best";
  const handle b = allocate(260_KiB);
  EXPECT_EQ(block_of(*model, b).address, base) << "the merged 300 KiB block";
  EXPECT_EQ(stats().segments, 1u);
  expect_consistent(*model, live);
}

TEST_F(CachingAllocator, EmptyCacheReleasesOnlyWholeFreeSegments) {
  const handle a = allocate(5_MiB);
  allocate(6_MiB);
  const handle c = allocate(30_MiB);
  release(a);
  release(c);
  model->empty_cache();
  EXPECT_EQ(stats().reserved.current, 20_MiB) << "the split 20 MiB segment stays";
  EXPECT_EQ(stats().segments, 1u);
  EXPECT_EQ(stats().device_frees, 1u);
  expect_consistent(*model, live);
}

TEST_F(CachingAllocator, ReusesFreedBlockOnlyOnItsOwnStream) {
  release(allocate(5_MiB, 1));
  allocate(5_MiB, 0);
  EXPECT_EQ(stats().reserved.current, 40_MiB);
  EXPECT_EQ(stats().segments, 2u);
  allocate(5_MiB, 1);
  EXPECT_EQ(stats().reserved.current, 40_MiB) << "stream 1's cached block serves stream 1";
}

TEST_F(CachingAllocator, RecordStreamKeepsBlockActiveUntilPolled) {
  const handle a = allocate(5_MiB, 0);
  model->record_stream(a, 1);
  release(a);
  EXPECT_EQ(stats().allocated.current, 0u);
  EXPECT_EQ(stats().active.current, 5_MiB);
  EXPECT_EQ(stats().requested.current, 5_MiB) << "requested drops only when the block is freed";
  model->complete_stream(1);
  EXPECT_EQ(stats().active.current, 5_MiB) << "events are polled by the next allocation";
  allocate(512, 0);
  EXPECT_EQ(stats().active.current, 512u);
  EXPECT_EQ(model->pool_stats(pool_kind::large).inactive_split, 0u)
      << "the 20 MiB segment merged back";
}

TEST_F(CachingAllocator, PollsEachStreamsEventsSeparately) {
  const handle a = allocate(5_MiB, 0);
  const handle b = allocate(6_MiB, 0);
  model->record_stream(a, 1);
  model->record_stream(b, 2);
  release(a);
  release(b);
  model->complete_stream(1);
  allocate(512, 0);
  EXPECT_EQ(stats().active.current, 6_MiB + 512) << "stream 2 has not completed";
  expect_consistent(*model, live);
}

TEST_F(CachingAllocator, MaxSplitSizeKeepsOversizeBlocksWhole) {
  caching_allocator_options o;
  o.max_split_size = 32_MiB;
  make(o);
  release(allocate(40_MiB));
  EXPECT_EQ(stats().oversize_segments, 1u);
  const allocation big = model->allocate(36_MiB, 0);
  EXPECT_EQ(big.block_size, 40_MiB) << "oversize request takes the 40 MiB block unsplit";
  EXPECT_EQ(stats().reserved.current, 40_MiB);
  EXPECT_EQ(stats().oversize_allocations, 1u);
  model->free(big.id);
  allocate(8_MiB);
  EXPECT_EQ(stats().reserved.current, 60_MiB) << "a normal request never takes an oversize block";

  make();  // without max_split_size the cached 40 MiB block is split instead
  release(allocate(40_MiB));
  allocate(8_MiB);
  EXPECT_EQ(stats().reserved.current, 40_MiB);
}

TEST_F(CachingAllocator, OversizeRequestRejectsBlockTwentyMiBLarger) {
  caching_allocator_options o;
  o.max_split_size = 32_MiB;
  make(o);
  release(allocate(64_MiB));
  allocate(40_MiB);
  EXPECT_EQ(stats().reserved.current, 104_MiB) << "64 MiB >= 40 MiB + 20 MiB: new segment";
}

TEST_F(CachingAllocator, ReleasesOversizeCachedBlockBeforeFlushing) {
  caching_allocator_options o;
  o.capacity = 100_MiB;
  o.max_split_size = 32_MiB;
  make(o);
  release(allocate(64_MiB));
  allocate(40_MiB);  // 64 + 40 > 100: the cached 64 MiB block is freed first
  EXPECT_EQ(stats().reserved.current, 40_MiB);
  EXPECT_EQ(stats().device_frees, 1u);
  EXPECT_EQ(stats().alloc_retries, 0u) << "no full flush was needed";
  EXPECT_EQ(stats().sync_all_streams, 0u);
}

TEST_F(CachingAllocator, FlushesCacheAndCountsRetryBeforeGivingUp) {
  caching_allocator_options o;
  o.capacity = 60_MiB;
  make(o);
  release(allocate(5_MiB, 1));
  allocate(50_MiB, 0);  // 20 + 50 > 60: stream 1's cached segment must go
  EXPECT_EQ(stats().reserved.current, 50_MiB);
  EXPECT_EQ(stats().alloc_retries, 1u);
  EXPECT_EQ(stats().sync_all_streams, 1u);
  EXPECT_EQ(stats().ooms, 0u);
}

TEST_F(CachingAllocator, OomMessageUsesTorchWording) {
  caching_allocator_options o;
  o.device_total = 80_GiB;
  o.capacity = 79_GiB;  // 1 GiB for the CUDA context and NCCL
  make(o);
  allocate(70_GiB);
  allocate(5_MiB);  // a 20 MiB segment: 15 MiB reserved but unallocated
  const allocation failed = model->allocate(10_GiB, 0);
  ASSERT_FALSE(failed.ok);
  ASSERT_TRUE(failed.oom.has_value());
  EXPECT_EQ(failed.oom->message,
            "CUDA out of memory. Tried to allocate 10.00 GiB. GPU 0 has a total capacity of "
            "80.00 GiB of which 8.98 GiB is free. Of the allocated memory 70.00 GiB is allocated "
            "by PyTorch, and 15.00 MiB is reserved by PyTorch but unallocated. If reserved but "
            "unallocated memory is large try setting "
            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.");
  EXPECT_EQ(failed.oom->requested, 10_GiB);
  EXPECT_EQ(failed.oom->segment_size, 10_GiB);
  EXPECT_EQ(failed.oom->reserved, 70_GiB + 20_MiB);
  EXPECT_EQ(failed.oom->largest_free, 15_MiB);
  EXPECT_EQ(stats().ooms, 1u);
  EXPECT_EQ(stats().alloc_retries, 1u);
  expect_consistent(*model, live);
}

TEST_F(CachingAllocator, OomMessageNamesSegmentSizeAndAllowedFraction) {
  caching_allocator_options o;
  o.capacity = 8_GiB;
  o.memory_fraction = 0.5;  // 4 GiB allowed
  make(o);
  allocate(3_GiB);
  const allocation small = model->allocate(5_MiB + 1, 0);
  ASSERT_TRUE(small.ok) << "3 GiB + a 20 MiB segment is within the 4 GiB allowed";
  const allocation too_big = model->allocate(1_GiB + 1, 0);
  ASSERT_FALSE(too_big.ok);
  EXPECT_EQ(
      too_big.oom->message,
      "CUDA out of memory. Tried to allocate 1.00 GiB. GPU 0 has a total capacity of "
      "8.00 GiB of which 4.98 GiB is free. 4.00 GiB allowed; Of the allocated memory 3.00 GiB "
      "is allocated by PyTorch, and 15.00 MiB is reserved by PyTorch but unallocated. If "
      "reserved but unallocated memory is large try setting "
      "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.");
}

TEST_F(CachingAllocator, GarbageCollectionReleasesOldCachedBlocks) {
  caching_allocator_options o;
  o.capacity = 100_MiB;
  o.memory_fraction = 1.0;
  o.garbage_collection_threshold = 0.5;  // collect above 50 MiB
  make(o);
  const handle a = allocate(30_MiB);
  const handle b = allocate(30_MiB);
  release(a);
  release(b);
  allocate(40_MiB);
  EXPECT_EQ(stats().reserved.current, 40_MiB) << "both cached 30 MiB segments were collected";
  EXPECT_EQ(stats().device_frees, 2u);

  o.garbage_collection_threshold = 0;
  make(o);
  const handle c = allocate(30_MiB);
  const handle d = allocate(30_MiB);
  release(c);
  release(d);
  allocate(40_MiB);
  EXPECT_EQ(stats().reserved.current, 100_MiB) << "without collection the cache is kept";
}

TEST_F(CachingAllocator, FreeOfUnknownHandleIsABug) {
  const handle a = allocate(1_MiB);
  model->free(a);
  live.erase(a);
  EXPECT_THROW(model->free(a), std::logic_error);
  EXPECT_THROW(model->record_stream(a, 1), std::logic_error);
}

// A replay on device 3 fails with the figures of the same replay on device 0; device 3's model
// words device 0's failure as its own.
TEST(CachingAllocatorOom, AnotherDeviceWordsTheSameFailure) {
  auto fail_on = [](int device) {
    caching_allocator_options o;
    o.capacity = 1_GiB;
    o.device = device;
    auto model = std::make_unique<caching_allocator>(o);
    model->allocate(400_MiB, 0);
    model->allocate(400_MiB, 0);
    auto failed = model->allocate(400_MiB, 0);
    return std::make_pair(std::move(model), *failed.oom);
  };
  const auto [device0, failed0] = fail_on(0);
  const auto [device3, failed3] = fail_on(3);
  EXPECT_NE(failed0.message, failed3.message);
  EXPECT_EQ(device3->oom_message(failed0), failed3.message);
}

}  // namespace
}  // namespace vramscope::alloc
