// bfc_allocator: 256-byte rounding, bins, preallocation vs. growth, splitting, coalescing,
// never shrinking, and the OOM when the pool cannot serve.

#include <vramscope/alloc/bfc_allocator.hpp>

#include <gtest/gtest.h>

#include <map>

#include "alloc/model_checks.hpp"

namespace vramscope::alloc {
namespace {

using testing::expect_consistent;

bfc_options growth(bytes limit) { return bfc_options{limit, false}; }
bfc_options preallocated(bytes limit) { return bfc_options{limit, true}; }

TEST(BfcAllocator, RoundsRequestsTo256Bytes) {
  bfc_allocator model(preallocated(1_GiB));
  EXPECT_EQ(model.allocate(100, 0).block_size, 256u);
  EXPECT_EQ(model.allocate(257, 0).block_size, 512u);
  EXPECT_EQ(model.stats().requested.current, 357u);
}

TEST(BfcAllocator, BinsDoubleFrom256Bytes) {
  EXPECT_EQ(bfc_bin_for_size(256), 0);
  EXPECT_EQ(bfc_bin_for_size(511), 0);
  EXPECT_EQ(bfc_bin_for_size(512), 1);
  EXPECT_EQ(bfc_bin_for_size(1_MiB), 12);
  EXPECT_EQ(bfc_bin_for_size(256_MiB), 20);
  EXPECT_EQ(bfc_bin_for_size(64_GiB), 20);
}

TEST(BfcAllocator, PreallocationTakesTheWholeLimitAtTheFirstAllocation) {
  bfc_allocator model(preallocated(1_GiB));
  EXPECT_EQ(model.stats().reserved.current, 0u);
  model.allocate(1_MiB, 0);
  EXPECT_EQ(model.stats().reserved.current, 1_GiB);
  EXPECT_EQ(model.stats().segments, 1u);
}

TEST(BfcAllocator, GrowthDoublesRegionSizes) {
  bfc_allocator model(growth(1_GiB));
  model.allocate(1_MiB, 0);
  EXPECT_EQ(model.stats().reserved.current, 2_MiB);
  model.allocate(1_MiB + 512_KiB, 0);  // the free 1 MiB is too small: a 4 MiB region
  EXPECT_EQ(model.stats().reserved.current, 6_MiB);
  model.allocate(10_MiB, 0);  // 8 MiB would not do: the region doubles to 16 MiB
  EXPECT_EQ(model.stats().reserved.current, 22_MiB);
  EXPECT_EQ(model.stats().segments, 3u);
}

TEST(BfcAllocator, SplitsOnlyChunksTwiceTheRequestOrWasting128MiB) {
  bfc_allocator model(preallocated(1_GiB));
  const allocation a = model.allocate(400_MiB, 0);
  EXPECT_EQ(a.block_size, 400_MiB) << "1 GiB >= 2 x 400 MiB: split";
  const allocation b = model.allocate(500_MiB, 0);
  EXPECT_EQ(b.block_size, 624_MiB) << "624 MiB < 1000 MiB and wastes < 128 MiB: taken whole";
  EXPECT_EQ(model.stats().allocated.current, 1_GiB);
}

TEST(BfcAllocator, CoalescesFreedNeighboursAndNeverShrinks) {
  bfc_allocator model(preallocated(1_GiB));
  const allocation a = model.allocate(100_MiB, 0);
  const allocation b = model.allocate(100_MiB, 0);
  const allocation c = model.allocate(100_MiB, 0);
  model.free(a.id);
  model.free(c.id);
  EXPECT_EQ(model.blocks().size(), 3u) << "a's chunk, b, and c merged with the tail";
  model.free(b.id);
  const auto blocks = model.blocks();
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].size, 1_GiB);
  model.empty_cache();
  EXPECT_EQ(model.stats().reserved.current, 1_GiB) << "BFC never returns memory";
}

TEST(BfcAllocator, FailsWhenThePoolCannotServe) {
  bfc_allocator model(preallocated(1_GiB));
  ASSERT_TRUE(model.allocate(600_MiB, 0).ok);
  const allocation failed = model.allocate(600_MiB, 0);
  ASSERT_FALSE(failed.ok);
  EXPECT_EQ(failed.oom->message,
            "RESOURCE_EXHAUSTED: Out of memory while trying to allocate 629145600 bytes. (BFC "
            "pool: 600.0 MiB in use of a 1.00 GiB limit, largest free chunk 424.0 MiB)");
  EXPECT_EQ(failed.oom->largest_free, 424_MiB);
  EXPECT_EQ(model.stats().ooms, 1u);
}

TEST(BfcAllocator, GrowthStopsAtThePoolLimit) {
  bfc_allocator model(growth(100_MiB));
  std::map<handle, bytes> live;
  for (int i = 0; i < 3; ++i) {
    const allocation a = model.allocate(30_MiB, 0);
    ASSERT_TRUE(a.ok);
    live[a.id] = a.block_size;
  }
  EXPECT_FALSE(model.allocate(30_MiB, 0).ok);
  EXPECT_LE(model.stats().reserved.current, 100_MiB);
  expect_consistent(model, live);
}

TEST(BfcAllocator, BacksOffWhenTheDriverHasLessRoomThanTheLimit) {
  bfc_options o = preallocated(1_GiB);
  o.driver_limit = 700_MiB;
  bfc_allocator model(o);
  ASSERT_TRUE(model.allocate(1_MiB, 0).ok);
  EXPECT_LE(model.stats().reserved.current, 700_MiB);
  EXPECT_GT(model.stats().reserved.current, 630_MiB) << "steps of 10 %";
}

TEST(BfcAllocator, GarbageCollectionReturnsIdleRegions) {
  bfc_options o = growth(10_MiB);
  o.garbage_collection = true;
  bfc_allocator model(o);
  const allocation a = model.allocate(1_MiB, 0);  // 2 MiB region
  const allocation b = model.allocate(3_MiB, 0);  // 4 MiB region
  model.free(a.id);
  model.free(b.id);
  ASSERT_TRUE(model.allocate(8_MiB, 0).ok) << "both idle regions are given back first";
  EXPECT_EQ(model.stats().reserved.current, 8_MiB);
  EXPECT_EQ(model.stats().device_frees, 2u);

  bfc_allocator keeps(growth(10_MiB));
  keeps.free(keeps.allocate(1_MiB, 0).id);
  keeps.free(keeps.allocate(3_MiB, 0).id);
  EXPECT_FALSE(keeps.allocate(8_MiB, 0).ok);
}

TEST(BfcAllocator, JaxDefaultsTakeThreeQuartersOfTheDevice) {
  const bfc_options o = jax_bfc_options(80_GiB);
  EXPECT_EQ(o.pool_limit, 60_GiB);
  EXPECT_TRUE(o.preallocate);
  EXPECT_EQ(jax_bfc_options(80_GiB, 0.9).pool_limit, 72_GiB);
}

}  // namespace
}  // namespace vramscope::alloc
