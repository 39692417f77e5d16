// The one suite every allocator model passes (rmm's mr_ref_test): freed bytes are
// reusable, stats stay ordered and agree with the block view, live blocks never overlap, an OOM
// leaves a consistent model, and record_stream defers reuse until the stream completes and a
// later allocation polls it.

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <vramscope/alloc/caching_allocator.hpp>
#include <vramscope/alloc/factory.hpp>

#include "alloc/model_checks.hpp"

namespace vramscope::alloc {
namespace {

using testing::block_of;
using testing::count_state;
using testing::expect_consistent;

constexpr bytes capacity = 1_GiB;

struct model_case {
  std::string label;
  std::function<std::unique_ptr<allocator_model>()> make;
};

void PrintTo(const model_case& c, std::ostream* os) { *os << c.label; }

caching_allocator_options caching(bool expandable = false) {
  caching_allocator_options o;
  o.capacity = capacity;
  o.expandable_segments = expandable;
  return o;
}

std::vector<model_case> all_models() {
  return {
      {"Caching", [] { return make_caching_allocator(caching()); }},
      {"CachingExpandable", [] { return make_caching_allocator(caching(true)); }},
      {"CachingTuned",
       [] {
         caching_allocator_options o = caching();
         o.max_split_size = 64_MiB;
         o.roundup_power2_divisions.fill(4);
         o.memory_fraction = 1.0;
         o.garbage_collection_threshold = 0.6;
         return make_caching_allocator(o);
       }},
      {"CudaMallocAsync",
       [] {
         caching_allocator_options o = caching();
         o.backend = alloc_backend::cuda_malloc_async;
         return make_caching_allocator(o);
       }},
      {"Exact", [] { return make_exact_allocator(capacity); }},
      {"BfcPreallocated",
       [] {
         return make_bfc_allocator(bfc_options{capacity, true});
       }},
      {"BfcGrowth",
       [] {
         return make_bfc_allocator(bfc_options{capacity, false});
       }},
      {"BfcGarbageCollected",
       [] {
         bfc_options o{capacity, false};
         o.garbage_collection = true;
         return make_bfc_allocator(o);
       }},
  };
}

class AllocatorConformance : public ::testing::TestWithParam<model_case> {
 protected:
  void SetUp() override { model = GetParam().make(); }

  handle allocate(bytes size, stream_id stream = 0) {
    const allocation a = model->allocate(size, stream);
    EXPECT_TRUE(a.ok) << (a.oom ? a.oom->message : "");
    EXPECT_GE(a.block_size, size);
    if (a.ok) live[a.id] = a.block_size;
    return a.id;
  }
  void release(handle id) {
    model->free(id);
    live.erase(id);
  }

  std::unique_ptr<allocator_model> model;
  std::map<handle, bytes> live;
};

TEST_P(AllocatorConformance, FreedBytesAreReusable) {
  // 600 MiB of a 1 GiB device ten times over only works if each free makes the bytes reusable.
  bytes reserved_first = 0;
  for (int i = 0; i < 10; ++i) {
    const handle id = allocate(600_MiB);
    if (i == 0) reserved_first = model->stats().reserved.current;
    EXPECT_EQ(model->stats().reserved.current, reserved_first) << "round " << i;
    expect_consistent(*model, live);
    release(id);
  }
  EXPECT_EQ(model->stats().allocated.current, 0u);
  EXPECT_EQ(model->stats().ooms, 0u);
}

TEST_P(AllocatorConformance, ZeroByteAllocationTakesNothing) {
  const allocation a = model->allocate(0, 0);
  ASSERT_TRUE(a.ok);
  EXPECT_EQ(a.id, zero_size_handle);
  EXPECT_EQ(a.block_size, 0u);
  EXPECT_EQ(model->stats().reserved.current, 0u);
  model->record_stream(a.id, 1);
  model->free(a.id);
  expect_consistent(*model, live);
}

TEST_P(AllocatorConformance, StatsStayConsistentUnderMixedWorkload) {
  std::mt19937_64 rng(42);
  std::vector<handle> handles;
  auto pick_size = [&rng]() -> bytes {
    const auto kind = rng() % 20;
    if (kind < 10) return 1 + rng() % 1_MiB;       // small pool
    if (kind < 17) return 1_MiB + rng() % 11_MiB;  // 20 MiB segments
    return 12_MiB + rng() % 180_MiB;               // own segments, sometimes an OOM
  };
  for (int step = 0; step < 1500; ++step) {
    const auto action = rng() % 100;
    const auto stream = static_cast<stream_id>(rng() % 3);
    if (action < 55 || handles.empty()) {
      const allocation a = model->allocate(pick_size(), stream);
      if (a.ok) {
        live[a.id] = a.block_size;
        handles.push_back(a.id);
      } else {
        ASSERT_TRUE(a.oom.has_value());
        EXPECT_FALSE(a.oom->message.empty());
      }
    } else {
      // The replay observes the figures only after allocations (predict/replay.cpp): nothing
      // else may raise them.
      const allocator_stats before = model->stats();
      if (action < 90) {
        const std::size_t i = rng() % handles.size();
        release(handles[i]);
        handles[i] = handles.back();
        handles.pop_back();
      } else if (action < 96) {
        model->record_stream(handles[rng() % handles.size()], stream);
      } else if (action < 99) {
        model->complete_stream(stream);
      } else {
        model->empty_cache();
      }
      const allocator_stats& after = model->stats();
      EXPECT_LE(after.allocated.current, before.allocated.current) << "step " << step;
      EXPECT_LE(after.active.current, before.active.current) << "step " << step;
      EXPECT_LE(after.reserved.current, before.reserved.current) << "step " << step;
    }
    expect_consistent(*model, live, "step " + std::to_string(step));
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(model->stats().ooms, 0u) << "the workload is meant to reach the capacity";
  EXPECT_GT(model->stats().device_allocs, 0u);
}

bool same_stats(const allocator_stats& a, const allocator_stats& b) {
  auto same = [](const stat& x, const stat& y) {
    return x.current == y.current && x.peak == y.peak;
  };
  return same(a.allocated, b.allocated) && same(a.active, b.active) &&
         same(a.reserved, b.reserved) && same(a.requested, b.requested) &&
         a.inactive_split == b.inactive_split && a.segments == b.segments &&
         a.device_allocs == b.device_allocs && a.alloc_retries == b.alloc_retries &&
         a.ooms == b.ooms && a.allocations == b.allocations &&
         a.inactive_split_blocks == b.inactive_split_blocks && a.device_frees == b.device_frees &&
         a.sync_all_streams == b.sync_all_streams &&
         a.oversize_allocations == b.oversize_allocations &&
         a.oversize_segments == b.oversize_segments;
}

bool same_blocks(const std::vector<block_info>& a, const std::vector<block_info>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
    return x.address == y.address && x.size == y.size && x.requested == y.requested &&
           x.stream == y.stream && x.state == y.state && x.id == y.id;
  });
}

// plan reuses the state after a what-if row's init for the next row with the same init events:
// a clone, and a fresh model given the state, must go on exactly as the model itself.
TEST_P(AllocatorConformance, CopiedStateGoesOnAsTheModel) {
  std::mt19937_64 rng(7);
  // One step of a mixed workload on `m`, with the random choices drawn once for all models.
  struct choice {
    std::uint64_t action, size, pick;
    stream_id stream;
  };
  auto draw = [&rng] {
    const auto kind = rng() % 20;
    const bytes size = kind < 10   ? 1 + rng() % 1_MiB
                       : kind < 17 ? 1_MiB + rng() % 11_MiB
                                   : 12_MiB + rng() % 180_MiB;
    return choice{rng() % 100, size, rng(), static_cast<stream_id>(rng() % 3)};
  };
  auto step = [](allocator_model& m, std::vector<handle>& handles, const choice& c) {
    if (c.action < 55 || handles.empty()) {
      const allocation a = m.allocate(c.size, c.stream);
      if (a.ok) handles.push_back(a.id);
      return a.ok ? "ok " + std::to_string(a.id) + " " + std::to_string(a.block_size)
                  : a.oom->message;
    }
    const std::size_t i = c.pick % handles.size();
    if (c.action < 90) {
      m.free(handles[i]);
      handles[i] = handles.back();
      handles.pop_back();
    } else if (c.action < 96) {
      m.record_stream(handles[i], c.stream);
    } else if (c.action < 99) {
      m.complete_stream(c.stream);
    } else {
      m.empty_cache();
    }
    return std::string();
  };
  std::vector<handle> handles;
  for (int i = 0; i < 700; ++i) step(*model, handles, draw());
  auto clone = model->clone();
  auto copied = GetParam().make();
  const bool took = copied->copy_state_from(*model);
  if (!clone) {
    EXPECT_FALSE(took) << "a model that cannot clone itself cannot copy a state either";
    return;
  }
  ASSERT_TRUE(took);
  EXPECT_FALSE(make_caching_allocator(caching_allocator_options{})->copy_state_from(*model))
      << "other options";
  std::vector<handle> clone_handles = handles, copied_handles = handles;
  for (int i = 0; i < 800; ++i) {
    const choice c = draw();
    const auto want = step(*model, handles, c);
    ASSERT_EQ(step(*clone, clone_handles, c), want) << "step " << i;
    ASSERT_EQ(step(*copied, copied_handles, c), want) << "step " << i;
    ASSERT_TRUE(same_stats(clone->stats(), model->stats())) << "step " << i;
    ASSERT_TRUE(same_stats(copied->stats(), model->stats())) << "step " << i;
    ASSERT_TRUE(same_blocks(clone->blocks(), model->blocks())) << "step " << i;
    ASSERT_TRUE(same_blocks(copied->blocks(), model->blocks())) << "step " << i;
  }
  EXPECT_GT(model->stats().ooms, 0u) << "the workload is meant to reach the capacity";
}

TEST_P(AllocatorConformance, OomLeavesStatsConsistent) {
  std::vector<handle> held;
  allocation failed;
  for (int i = 0; i < 4 && (failed.ok || i == 0); ++i) {
    failed = model->allocate(400_MiB, 0);
    if (failed.ok) {
      live[failed.id] = failed.block_size;
      held.push_back(failed.id);
    }
  }
  ASSERT_FALSE(failed.ok) << "three 400 MiB blocks cannot fit in 1 GiB";
  ASSERT_TRUE(failed.oom.has_value());
  EXPECT_EQ(failed.oom->requested, 400_MiB);
  EXPECT_FALSE(failed.oom->message.empty());
  EXPECT_GE(model->stats().ooms, 1u);
  expect_consistent(*model, live, "after the OOM");
  for (handle id : held) release(id);
  allocate(400_MiB);
  expect_consistent(*model, live, "after recovering");
}

// plan reuses one rank's replay for another with the same program and capacity and asks that
// rank's model to word the error: the words must be the ones allocate gave.
TEST_P(AllocatorConformance, OomMessageRewordsTheFailure) {
  allocate(400_MiB);
  allocate(400_MiB);
  const allocation failed = model->allocate(400_MiB, 0);
  ASSERT_FALSE(failed.ok);
  ASSERT_TRUE(failed.oom.has_value());
  const auto message = model->oom_message(*failed.oom);
  if (message) {
    EXPECT_EQ(*message, failed.oom->message);
  }
}

TEST_P(AllocatorConformance, PeaksResetToCurrent) {
  const handle a = allocate(64_MiB);
  allocate(8_MiB);
  release(a);
  EXPECT_GT(model->stats().allocated.peak, model->stats().allocated.current);
  model->reset_peaks();
  const allocator_stats& s = model->stats();
  EXPECT_EQ(s.allocated.peak, s.allocated.current);
  EXPECT_EQ(s.active.peak, s.active.current);
  EXPECT_EQ(s.reserved.peak, s.reserved.current);
  EXPECT_EQ(s.requested.peak, s.requested.current);
}

TEST_P(AllocatorConformance, RecordStreamDefersReuse) {
  const handle a = allocate(8_MiB, 0);
  const block_info first = block_of(*model, a);
  model->record_stream(a, 1);
  release(a);
  EXPECT_EQ(model->stats().allocated.current, 0u);
  EXPECT_GE(model->stats().active.current, 8_MiB) << "the block waits for stream 1";
  EXPECT_EQ(count_state(*model, block_state::pending_free), 1u);

  // The same size on the same stream must not land on the pending block.
  const handle b = allocate(8_MiB, 0);
  const block_info second = block_of(*model, b);
  EXPECT_TRUE(second.address >= first.address + first.size ||
              second.address + second.size <= first.address);

  model->complete_stream(1);
  EXPECT_EQ(count_state(*model, block_state::pending_free), 1u) << "not yet polled";
  allocate(1_KiB, 0);  // polls the completed event
  EXPECT_EQ(count_state(*model, block_state::pending_free), 0u);
  EXPECT_EQ(model->stats().active.current, model->stats().allocated.current);
  expect_consistent(*model, live);
}

TEST_P(AllocatorConformance, StreamCompletedBeforeTheFreeDoesNotReleaseIt) {
  const handle a = allocate(8_MiB, 0);
  model->record_stream(a, 2);
  model->complete_stream(2);  // work queued before the free; the free's event comes later
  release(a);
  allocate(1_KiB, 0);
  EXPECT_EQ(count_state(*model, block_state::pending_free), 1u);
  model->complete_stream(2);
  allocate(1_KiB, 0);
  EXPECT_EQ(count_state(*model, block_state::pending_free), 0u);
  expect_consistent(*model, live);
}

TEST_P(AllocatorConformance, RecordStreamOnOwnStreamIsNoOp) {
  const handle a = allocate(8_MiB, 1);
  model->record_stream(a, 1);
  release(a);
  EXPECT_EQ(count_state(*model, block_state::pending_free), 0u);
  EXPECT_EQ(model->stats().active.current, 0u);
}

TEST_P(AllocatorConformance, EmptyCacheWaitsForPendingEvents) {
  const handle a = allocate(8_MiB, 0);
  model->record_stream(a, 1);
  release(a);
  model->empty_cache();  // synchronises, like torch.cuda.empty_cache()
  EXPECT_EQ(count_state(*model, block_state::pending_free), 0u);
  EXPECT_EQ(model->stats().active.current, 0u);
  expect_consistent(*model, live);
}

INSTANTIATE_TEST_SUITE_P(AllModels, AllocatorConformance, ::testing::ValuesIn(all_models()),
                         [](const auto& info) { return info.param.label; });

}  // namespace
}  // namespace vramscope::alloc
