// exact_allocator: reserved follows allocated exactly; only recorded streams hold memory.

#include <vramscope/alloc/exact_allocator.hpp>

#include <gtest/gtest.h>

namespace vramscope::alloc {
namespace {

TEST(ExactAllocator, ReservesExactlyTheRoundedLiveBytes) {
  exact_allocator model(1_GiB);
  const allocation a = model.allocate(100, 0);
  ASSERT_TRUE(a.ok);
  EXPECT_EQ(a.block_size, 512u);
  const allocation b = model.allocate(5_MiB + 1, 0);
  EXPECT_EQ(model.stats().reserved.current, 512 + 5_MiB + 512);
  EXPECT_EQ(model.stats().reserved.current, model.stats().allocated.current);
  EXPECT_EQ(model.stats().segments, 2u);
  model.free(a.id);
  EXPECT_EQ(model.stats().reserved.current, 5_MiB + 512) << "a free returns memory at once";
  model.free(b.id);
  EXPECT_EQ(model.stats().reserved.current, 0u);
  EXPECT_EQ(model.stats().reserved.peak, 5_MiB + 1024);
  EXPECT_EQ(model.stats().device_allocs, 2u);
  EXPECT_EQ(model.stats().device_frees, 2u);
}

TEST(ExactAllocator, HoldsRecordedBlockUntilItsStreamCompletes) {
  exact_allocator model(1_GiB);
  const allocation a = model.allocate(8_MiB, 0);
  model.record_stream(a.id, 1);
  model.free(a.id);
  EXPECT_EQ(model.stats().allocated.current, 0u);
  EXPECT_EQ(model.stats().reserved.current, 8_MiB);
  model.complete_stream(1);
  model.allocate(512, 0);
  EXPECT_EQ(model.stats().reserved.current, 512u);
}

TEST(ExactAllocator, WaitsForPendingEventsBeforeAnOom) {
  exact_allocator model(10_MiB);
  const allocation a = model.allocate(8_MiB, 0);
  model.record_stream(a.id, 1);
  model.free(a.id);
  EXPECT_TRUE(model.allocate(8_MiB, 0).ok) << "the pending 8 MiB is waited for";
  EXPECT_EQ(model.stats().alloc_retries, 1u);
  const allocation failed = model.allocate(4_MiB, 0);
  ASSERT_FALSE(failed.ok);
  EXPECT_EQ(failed.oom->message,
            "CUDA error: out of memory (cudaMalloc of 4.0 MiB with "
            "PYTORCH_NO_CUDA_MEMORY_CACHING=1; 8.0 MiB of 10.0 MiB in use).");
}

TEST(ExactAllocator, NamesTheCudaMallocAsyncFlavour) {
  exact_options o;
  o.capacity = 10_MiB;
  o.flavour = exact_flavour::cuda_malloc_async;
  exact_allocator model(o);
  EXPECT_EQ(model.name(), "torch-cuda-malloc-async");
  model.allocate(8_MiB, 0);
  EXPECT_EQ(model.allocate(4_MiB, 0).oom->message,
            "Allocation on device 0 would exceed allowed memory. (out of memory) Currently "
            "allocated: 8.0 MiB, requested: 4.0 MiB, device limit: 10.0 MiB, free (according to "
            "CUDA): 2.0 MiB.");
}

}  // namespace
}  // namespace vramscope::alloc
